import Foundation
import KeychainCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Counts failed fingerprint matches in a row; after `limit` of them biometry is locked out
/// until the passcode is entered (`reset()`), as Apple's devices do after five.
///
/// The count is the user's, not a process's: it lives in a private file (0600, in the user's
/// keychain directory, `biometry-failures`) read and written under an exclusive `flock`, so
/// every program of the user and keychaind share it, and quitting a program or restarting the
/// machine does not clear it. fprintd itself has no such limit, so this bounds guessing through
/// the keychain's own prompts only: a program of the same user can still talk to fprintd
/// directly. A lockout without a file (`inMemory`) is one process's, for tests.
package final class BiometryLockout: Sendable {
    /// Failed matches in a row that lock biometry out.
    package static let limit = 5

    private let path: String?
    private let memory = Mutex(0)

    /// The user's lockout (`biometry-failures` in the keychain directory of the user).
    package static var user: BiometryLockout {
        BiometryLockout(path: (KeychainLocation.userDirectory as NSString).appendingPathComponent("biometry-failures"))
    }

    /// A lockout counted in the private file at `path`.
    package init(path: String) {
        self.path = path
    }

    private init() {
        path = nil
    }

    /// A lockout held in this object only.
    package static func inMemory() -> BiometryLockout { BiometryLockout() }

    /// The failed matches in a row so far (0 when the file cannot be read).
    package var failures: Int {
        (try? update { _ in nil }) ?? 0
    }

    /// Whether biometry is locked out.
    package var isLockedOut: Bool { failures >= Self.limit }

    /// Counts one more failed match; returns whether biometry is now locked out.
    @discardableResult
    package func recordFailure() -> Bool {
        // A count that cannot be written locks out: failing closed keeps the limit.
        ((try? update { $0 + 1 }) ?? Self.limit) >= Self.limit
    }

    /// Clears the count: the passcode was entered, or a finger matched before the limit.
    package func reset() {
        _ = try? update { _ in 0 }
    }

    /// Reads the count and, when `change` gives one, writes the new count, under one lock.
    private func update(_ change: (Int) -> Int?) throws -> Int {
        guard let path else {
            return memory.withLock { count in
                if let new = change(count) { count = new }
                return count
            }
        }
        try FileSystem.makePrivateDirectory((path as NSString).deletingLastPathComponent)
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.notAvailable, "the \(FileRole.biometryFailures.rawValue) cannot be opened (errno \(errno))")
        }
        defer { close(descriptor) }
        try FileSystem.requirePrivate(descriptor: descriptor, path: path, role: .biometryFailures)
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw KeychainError(.notAvailable, "the \(FileRole.biometryFailures.rawValue) cannot be locked (errno \(errno))")
        }
        var buffer = [UInt8](repeating: 0, count: 32)
        let length = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        let text = length > 0 ? String(decoding: buffer[..<length], as: UTF8.self) : ""
        let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? (length > 0 ? Self.limit : 0)
        guard let new = change(count), new != count else { return count }
        let bytes = Array("\(new)\n".utf8)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count, ftruncate(descriptor, off_t(bytes.count)) == 0 else {
            throw KeychainError(.notAvailable, "the \(FileRole.biometryFailures.rawValue) cannot be written (errno \(errno))")
        }
        return new
    }
}
