import Foundation
import Synchronization

/// One exchange at a time for each keychain in this process. An exchange reads the sync state,
/// works for a while, then saves it: two at once would each save what they saw, the later one
/// dropping what the other recorded. keychaind's background worker and the exchanges it runs for
/// `security sync now` (`DaemonSync`) both take the keychain's lock around `SyncEngine.syncNow`;
/// one that finds it taken waits for the other to finish, then runs.
package enum SyncExchangeLock {
    /// The lock of each keychain met so far, by its file's resolved path (a few bytes each, kept
    /// for the life of the process).
    private static let locks = Mutex<[String: NSLock]>([:])

    /// Runs `body` holding the lock of the keychain at `path`.
    package static func run<T>(path: String, _ body: () throws -> T) rethrows -> T {
        let key = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let lock = locks.withLock { locks in
            if let lock = locks[key] { return lock }
            let lock = NSLock()
            locks[key] = lock
            return lock
        }
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
