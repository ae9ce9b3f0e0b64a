import Foundation
import KeychainCore
import Synchronization

/// The keychains the daemon holds, and the files each was found in.
///
/// A client that opens a keychain must meet the keychain its files hold now, as a process that
/// opened it itself would: if the database or the keybag was replaced behind the daemon's back
/// (restored from a copy, moved in from elsewhere), the daemon drops what it holds for that path
/// and opens the files afresh, with every check of a first open (privacy of the files, the keybag
/// belonging to the database). The daemon is the only writer of a keychain it holds, so any
/// change of the files it did not make itself is such a replacement: it records the files after
/// each of its own changes to the keybag (unlock attempts, passcode changes, settings).
final class HeldKeychains: Sendable {
    /// The database's identity (its content changes at every write; its inode does not) and the
    /// keybag's version, as the daemon last left them.
    private struct Observation: Equatable, Sendable {
        var database: (device: UInt64, inode: UInt64)?
        var keybag: FileVersion?

        init(path: String) {
            database = FileVersion(path: path, followingLinks: false).map { ($0.device, $0.inode) }
            keybag = FileVersion(path: path + ".keybag", followingLinks: false)
        }

        static func == (a: Observation, b: Observation) -> Bool {
            a.database?.device == b.database?.device && a.database?.inode == b.database?.inode && a.keybag == b.keybag
        }
    }

    private let observations = Mutex<[String: Observation]>([:])

    /// The keychain at `path` for a client that opens it: the one held if its files are the ones
    /// the daemon left, after checking they are still private; otherwise opened afresh.
    func openForClient(path: String, create: Bool) throws -> Keychain {
        try observations.withLock { observations in
            if let seen = observations[path], seen != Observation(path: path) {
                Keychain.dropOpenInstance(path: path)
            }
            let keychain = try Keychain.open(path: path, create: create)
            try keychain.requirePrivateFiles()
            observations[path] = Observation(path: path)
            return keychain
        }
    }

    /// Runs `body`, which may write the keybag of the keychain at `path`, and records the files
    /// as the daemon left them.
    func changingKeybag<T>(of path: String, _ body: () throws -> T) rethrows -> T {
        try observations.withLock { observations in
            defer { observations[path] = Observation(path: path) }
            return try body()
        }
    }

    /// Forgets what is recorded for `path` (its keychain was deleted).
    func forget(_ path: String) {
        _ = observations.withLock { $0.removeValue(forKey: path) }
    }
}
