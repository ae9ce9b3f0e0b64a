import Foundation
import KeychainCore
import Synchronization

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

    /// Reads the count and, when `change` gives one, writes the new count, under one lock. A
    /// file that does not hold a count counts as locked out.
    private func update(_ change: (Int) -> Int?) throws -> Int {
        guard let path else {
            return memory.withLock { count in
                if let new = change(count) { count = new }
                return count
            }
        }
        try FileSystem.makePrivateDirectory((path as NSString).deletingLastPathComponent)
        func count(_ contents: Data) -> Int {
            guard !contents.isEmpty else { return 0 }
            return Int(String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? Self.limit
        }
        let contents = try FileSystem.updateLocked(path, role: .biometryFailures, limit: 64) { contents in
            change(count(contents)).map { Data("\($0)\n".utf8) }
        }
        return count(contents)
    }
}
