import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Who holds a keychain: `keychaind`, alone, or any number of processes that opened it
/// themselves, never both at once.
///
/// A keychain served by the daemon must not be opened by a process at the same time: the
/// process would not see the daemon's lock state, and its writes would escape the daemon's
/// checks. The rule is a lock on a file beside the database (`<name>.keychain-db.holder`): the
/// daemon takes it exclusively and writes its pid there; a process that opens the keychain itself
/// takes it shared. The lock lasts as long as an instance of the keychain does in the process (a
/// test that forgets its instance lets the daemon take the keychain again).
final class HolderLock: Sendable {
    private let descriptor: Int32

    /// Whether this process takes keychains exclusively (`keychaind` turns it on at start).
    package static let exclusive = Atomic<Bool>(false)

    /// The locks this process holds, by database path: one per path, shared by its instances.
    private static let held = Mutex<[String: WeakHolder]>([:])

    /// A lock the map does not keep alive.
    private struct WeakHolder: @unchecked Sendable {
        weak var lock: HolderLock?
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The path of the holder file of the database at `path`.
    static func path(forDatabase path: String) -> String { path + ".holder" }

    /// The lock of the keychain whose database is at `path`, taken if no instance of this process
    /// holds it already.
    ///
    /// - Throws: `errSecNotAvailable` when the keychain is held the other way: by the daemon for
    ///   a process opening it itself (the message names the daemon's pid), or by such a process
    ///   for the daemon; `errSecWrPerm` when the holder file is not private.
    static func acquire(database path: String) throws -> HolderLock {
        try held.withLock { held in
            if let lock = held[path]?.lock { return lock }
            let lockPath = Self.path(forDatabase: path)
            try FileSystem.createPrivateFileIfMissing(lockPath, role: .holder)
            let descriptor = open(lockPath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { throw KeychainError(.notAvailable, "the keychain's holder file cannot be opened") }
            let lock = HolderLock(descriptor: descriptor)
            try FileSystem.requirePrivate(descriptor: descriptor, path: lockPath, role: .holder)
            let exclusive = Self.exclusive.load(ordering: .relaxed)
            guard flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
                if exclusive {
                    throw KeychainError(
                        .notAvailable,
                        "the keychain is open in a process that opened it itself (KEYCHAIN_MODE=embedded); keychaind cannot serve it until that process ends")
                }
                let holder = lock.recordedProcess().map { " (pid \($0))" } ?? ""
                throw KeychainError(
                    .notAvailable,
                    "the keychain is held by keychaind\(holder); reach it through the daemon (KEYCHAIN_MODE unset or daemon)")
            }
            if exclusive {
                let text = Array("\(getpid())\n".utf8)
                _ = ftruncate(descriptor, 0)
                _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            }
            held[path] = WeakHolder(lock: lock)
            return lock
        }
    }

    /// Releases the lock of the keychain at `path` (it was deleted).
    static func release(database path: String) {
        _ = held.withLock { $0.removeValue(forKey: path) }
    }

    /// The pid the daemon wrote in the holder file.
    private func recordedProcess() -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 15, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
