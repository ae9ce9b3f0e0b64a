internal import CSQLite
import Foundation

extension SQLiteConnection {
    /// Makes `db` wait for other connections' locks for 10–15 s when `milliseconds` is 10 000,
    /// polling every 2–3 ms.
    ///
    /// SQLite's own timeout handler (`sqlite3_busy_timeout`) backs off to 100 ms between tries, so
    /// under heavy contention a waiter can lose the race for the lock for seconds while others
    /// come and go (up to 4.4 s of a 10 s budget with 8 processes × 4 threads). Polling often with
    /// random jitter keeps every waiter in the race, so the bound is reached only when the lock is
    /// really held that long; then the statement fails with SQLITE_BUSY.
    package static func waitForLocks(_ db: OpaquePointer, milliseconds: Int32) {
        CSQLite_busy_handler(
            db,
            { context, attempts in
                // Each attempt sleeps at least 2 ms: after milliseconds / 2 attempts, give up.
                guard Int(attempts) < Int(bitPattern: context) / 2 else { return 0 }
                usleep(useconds_t.random(in: 2000...3000))
                return 1
            },
            UnsafeMutableRawPointer(bitPattern: Int(milliseconds)))
    }

    /// Runs `body` until it succeeds, retrying for up to `milliseconds` while it fails with a
    /// transient error (SQLITE_BUSY, SQLITE_LOCKED or SQLITE_IOERR).
    ///
    /// For `PRAGMA journal_mode = WAL` when a connection opens: processes that open a new keychain
    /// at the same moment race to convert it from a rollback journal to WAL, and the losers see
    /// the journal vanish (SQLITE_IOERR_DELETE_NOENT) or a lock change hands (SQLITE_IOERR_RDLOCK)
    /// without SQLite's busy handler being consulted. WAL mode is persistent, so once the winner
    /// is done the statement succeeds (found by the 8-process concurrency test).
    package func retryingTransientFailures(forMilliseconds milliseconds: Int32, _ body: () throws -> Void) throws {
        let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while true {
            do {
                return try body()
            } catch let error as SQLiteError
                where [SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR].contains(error.primary) && Date() < deadline
            {
                usleep(useconds_t.random(in: 1000...5000))
            }
        }
    }
}
