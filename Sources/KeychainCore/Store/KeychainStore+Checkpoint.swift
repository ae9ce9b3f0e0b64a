#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Synchronization

/// When the write-ahead log reaches the database file, and when it is emptied.
///
/// SQLite appends every commit to `<keychain>-wal` and copies pages into the database file only
/// at a checkpoint. Until then the log also keeps every earlier version of a page: a deleted or
/// overwritten item's ciphertext stays recoverable from it, and the database file alone (a copy
/// without the log) lacks the latest writes. So:
/// - after a write that deletes or replaces sealed data, a `TRUNCATE` checkpoint copies the log
///   into the database (whose freed space `secure_delete` has zeroed) and truncates the log to
///   nothing, at most `checkpointDelay` after the write returned (`scheduleCheckpoint`): one
///   checkpoint serves every such write of that interval, off the callers' path (a checkpoint
///   syncs the database file and truncates the log: about 0.75 ms, more than the write itself);
/// - other writes are checkpointed when the log passes `SQLiteConnection.autoCheckpointPages`
///   pages (SQLite's automatic, passive checkpoint);
/// - when the process ends normally (`exit`, or returning from `main`) every open keychain is
///   checkpointed and its log truncated, so the database file holds every acknowledged write.
///
/// A checkpoint waits for other connections' transactions as a write does (the busy wait); if
/// one outlasts the wait, the checkpoint completes at the next such write or at exit.
extension KeychainStore {
    /// Checkpoints the log into the database and truncates it, on `connection` (idle: no
    /// transaction open). Failures are not errors of the caller's write, which has committed.
    func checkpoint(using connection: SQLiteConnection) {
        _ = connection.checkpointTruncating()
    }

    /// `checkpoint(using:)` on a connection of the pool.
    func checkpoint() {
        try? withConnection { checkpoint(using: $0) }
    }

    /// The longest a write that deleted or replaced sealed data waits for the checkpoint that
    /// removes the old ciphertext from the keychain's files.
    static let checkpointDelay: TimeInterval = 0.1

    /// Asks for a checkpoint within `checkpointDelay` (one for every write that asks meanwhile).
    /// If it cannot complete then (another connection holds a transaction past the busy wait), it
    /// is asked for again.
    func scheduleCheckpoint() {
        let first = checkpointPending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard first else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.checkpointDelay) { [weak self] in
            guard let self else { return }
            // Cleared first: a write during the checkpoint asks for the next one.
            checkpointPending.withLock { $0 = false }
            let completed = (try? withConnection { $0.checkpointTruncating() }) ?? false
            if !completed { scheduleCheckpoint() }
        }
    }

    /// Whether a checkpoint has been asked for and not yet run.
    var isCheckpointPending: Bool { checkpointPending.withLock { $0 } }

    // MARK: - At exit

    /// The stores of this process, checkpointed when it exits.
    private static let openStores = Mutex<[WeakStore]>([])

    /// Installs the exit handler once, before the first store is registered.
    private static let exitHandler: Void = {
        atexit { KeychainStore.checkpointOpenStores() }
    }()

    /// Registers `store` for the checkpoint at exit.
    static func registerForExit(_ store: KeychainStore) {
        _ = exitHandler
        openStores.withLock { stores in
            stores.removeAll { $0.store == nil }
            stores.append(WeakStore(store))
        }
    }

    /// Checkpoints every open store on a connection of its own that waits briefly (another
    /// thread or process holding the database must not hold up the exit for long).
    static func checkpointOpenStores() {
        let paths = openStores.withLock { stores in Set(stores.compactMap { $0.store?.path }) }
        for path in paths {
            guard (try? KeychainLocation.databaseFiles(forDatabase: path).forEach { try FileSystem.requirePrivate(path: $0.path, role: $0.role) }) != nil,
                let connection = try? SQLiteConnection(path: path, busyTimeoutMilliseconds: 500)
            else { continue }
            _ = connection.checkpointTruncating()
        }
    }
}

/// A store the exit handler may checkpoint, if it still exists.
private struct WeakStore: @unchecked Sendable {
    weak var store: KeychainStore?
    init(_ store: KeychainStore) { self.store = store }
}
