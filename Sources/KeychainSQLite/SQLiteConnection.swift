internal import CSQLite
import Foundation
import Synchronization

/// One SQLite connection, used by one thread at a time (opened in multi-thread mode).
///
/// Owns the `sqlite3` handle and a cache of prepared statements; both are released in `deinit`.
package final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// Statements of `PreparedSQL` values, by slot.
    private var slots: [SQLiteStatement?] = []

    /// Opens (creating if needed) the database at `path` with WAL journaling and full sync.
    package init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws {
        if let failure = Self.libraryLoadFailure {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "SQLite could not be loaded: \(failure)")
        }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        let status = CSQLite_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            if let db { CSQLite_close_v2(db) }
            throw SQLiteError(code: status, message: "could not open the keychain database")
        }
        handle = db
        CSQLite_extended_result_codes(db, 1)
        Self.waitForLocks(db, milliseconds: busyTimeoutMilliseconds)
        do {
            try retryingTransientFailures(forMilliseconds: busyTimeoutMilliseconds) {
                try execute("PRAGMA journal_mode = WAL")
            }
            try execute("PRAGMA synchronous = FULL")
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA secure_delete = ON")
            try execute("PRAGMA wal_autocheckpoint = \(Self.autoCheckpointPages)")
        } catch {
            CSQLite_close_v2(db)
            throw error
        }
    }

    /// The write-ahead log's size, in pages, at which a commit copies it into the database
    /// file (SQLite's automatic passive checkpoint; its default is 1 000 pages).
    package static let autoCheckpointPages: Int32 = 128

    /// Copies every committed page of the write-ahead log into the database file, syncs it, and
    /// truncates the log to zero bytes (`wal_checkpoint(TRUNCATE)`), waiting for other
    /// connections as a write does. Returns false when one kept it from completing.
    package func checkpointTruncating() -> Bool {
        var logFrames: Int32 = 0
        var copiedFrames: Int32 = 0
        return CSQLite_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, &logFrames, &copiedFrames) == SQLITE_OK
    }

    /// Loads SQLite and applies the process-wide settings, once, before the first connection
    /// opens; nil when that worked, otherwise the loader's reason.
    private static let libraryLoadFailure: String? = {
        var reason = [CChar](repeating: 0, count: 256)
        guard CSQLite_load(&reason, reason.count) == 0 else {
            return reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        _ = CSQLite_disableMemoryStatistics()
        return nil
    }()

    deinit {
        statements.removeAll()
        slots.removeAll()
        CSQLite_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters.
    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = CSQLite_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastMessage
            CSQLite_free(message)
            throw SQLiteError(code: status, message: text)
        }
    }

    /// A prepared statement for `sql`, reused across calls; its bindings are cleared.
    package func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// The prepared statement of `sql`, found by its slot rather than by hashing its text.
    package func statement(_ sql: PreparedSQL) throws -> SQLiteStatement {
        if sql.slot < slots.count, let cached = slots[sql.slot] {
            cached.reset()
            return cached
        }
        let statement = try prepare(sql.text)
        if sql.slot >= slots.count { slots += Array(repeating: nil, count: sql.slot + 1 - slots.count) }
        slots[sql.slot] = statement
        return statement
    }

    private func prepare(_ sql: String) throws -> SQLiteStatement {
        var pointer: OpaquePointer?
        let status = CSQLite_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard status == SQLITE_OK, let pointer else { throw SQLiteError(code: status, message: lastMessage) }
        return SQLiteStatement(pointer, connection: self)
    }

    private static let beginImmediate = PreparedSQL("BEGIN IMMEDIATE")
    private static let beginDeferred = PreparedSQL("BEGIN DEFERRED")
    private static let commit = PreparedSQL("COMMIT")
    private static let rollback = PreparedSQL("ROLLBACK")

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    package func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try statement(Self.beginImmediate).run()
        do {
            let value = try body()
            try statement(Self.commit).run()
            return value
        } catch {
            try? statement(Self.rollback).run()
            throw error
        }
    }

    /// Runs `body` inside a deferred (read) transaction so all its statements see one snapshot.
    package func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try statement(Self.beginDeferred).run()
        defer { try? statement(Self.commit).run() }
        return try body()
    }

    /// Whether a transaction is open (otherwise each statement is its own transaction).
    package var isInTransaction: Bool { CSQLite_get_autocommit(handle) == 0 }

    /// The number of rows the last statement changed.
    package var changes: Int { Int(CSQLite_changes(handle)) }

    /// The rowid of the last inserted row.
    package var lastInsertRowID: Int64 { CSQLite_last_insert_rowid(handle) }

    /// The connection's latest error message (never contains bound values).
    package var lastMessage: String { String(cString: CSQLite_errmsg(handle)) }
}

/// An SQL text the engine runs often, with a slot of its own in every connection's statement
/// cache (declared once, as a `static let`).
package struct PreparedSQL: Sendable {
    package let text: String
    package let slot: Int

    package init(_ text: String) {
        self.text = text
        slot = Self.nextSlot.add(1, ordering: .relaxed).oldValue
    }

    private static let nextSlot = Atomic<Int>(0)
}
