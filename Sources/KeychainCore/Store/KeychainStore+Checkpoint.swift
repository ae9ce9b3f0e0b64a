#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Synchronization
import KeychainSQLite

/// When the write-ahead log reaches the database file, and when it is emptied.
///
/// SQLite appends every commit to `<keychain>-wal` and copies pages into the database file only
/// at a checkpoint. Until then the log also keeps every earlier version of a page: a deleted or
/// overwritten item's ciphertext stays recoverable from it, and the database file alone (a copy
/// without the log) lacks the latest writes. So:
/// - after a write that deletes or replaces sealed data, a `TRUNCATE` checkpoint copies the log
///   into the database (whose freed space `secure_delete` has zeroed) and truncates the log to
///   nothing, about `checkpointDelay` after the write returned (`scheduleCheckpoint`): one
///   checkpoint serves every such write of that interval, off the callers' path (a checkpoint
///   syncs the database file and truncates the log: about 0.75 ms, more than the write itself);
/// - other writes are checkpointed when the log passes `SQLiteConnection.autoCheckpointPages`
///   pages (SQLite's automatic, passive checkpoint);
/// - when the process ends normally (`exit`, or returning from `main`) every open keychain is
///   checkpointed and its log truncated, so the database file holds every acknowledged write.
///
/// A scheduled checkpoint gives way: it runs on a connection of its own whose busy wait is
/// `checkpointWaitMilliseconds`, so it never holds the write lock for long while other
/// connections' readers finish, and one runs at most once a second per process (a checkpoint
/// holds the write lock while it copies and syncs: eight busy processes checkpointing every
/// 100 ms starved their writers past the 10-second wait); when it cannot complete it is tried
/// again after twice the delay, up to eight seconds. A log already emptied needs no checkpoint.
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
    static let checkpointDelay: TimeInterval = 1

    /// Asks for a checkpoint within `checkpointDelay` (one for every write that asks meanwhile).
    /// If it cannot complete then (another connection holds a transaction past the busy wait), it
    /// is asked for again.
    func scheduleCheckpoint() {
        scheduleCheckpoint(after: Self.checkpointDelay)
    }

    /// How long a scheduled checkpoint waits for other connections before it gives way.
    static let checkpointWaitMilliseconds: Int32 = 50

    private func scheduleCheckpoint(after delay: TimeInterval) {
        let first = checkpointPending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard first else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            // Cleared first: a write during the checkpoint asks for the next one.
            checkpointPending.withLock { $0 = false }
            if !runScheduledCheckpoint() { scheduleCheckpoint(after: min(delay * 2, 8)) }
        }
    }

    /// Runs a checkpoint on the store's checkpoint connection; false when it could not complete.
    /// An empty log (another process's checkpoint got there first) needs none.
    private func runScheduledCheckpoint() -> Bool {
        if FileSystem.size(of: path + "-wal") == 0 { return true }
        return checkpointConnection.withLock { slot in
            if slot == nil {
                slot = (try? Self.openConnection(path: path, busyTimeoutMilliseconds: Self.checkpointWaitMilliseconds))
                    .map(CheckpointConnection.init)
            }
            return slot?.connection.checkpointTruncating() ?? false
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

    /// Checkpoints every open store (`checkpointAtExit`).
    static func checkpointOpenStores() {
        let stores = openStores.withLock { stores in stores.compactMap(\.store) }
        var done = Set<String>()
        for store in stores where done.insert(store.path).inserted { store.checkpointAtExit() }
    }

    /// What the exit handler does for this store: a checkpoint on a connection of its own that
    /// waits briefly (another thread or process holding the database must not hold up the exit
    /// for long).
    func checkpointAtExit() {
        guard let connection = try? Self.openConnection(path: path, busyTimeoutMilliseconds: 500) else { return }
        _ = connection.checkpointTruncating()
    }
}

/// The connection a store's scheduled checkpoints run on, one at a time (under its mutex).
final class CheckpointConnection: @unchecked Sendable {
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
}

/// A store the exit handler may checkpoint, if it still exists.
private struct WeakStore: @unchecked Sendable {
    weak var store: KeychainStore?
    init(_ store: KeychainStore) { self.store = store }
}
