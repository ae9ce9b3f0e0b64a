import CSQLiteLinked

/// A plain SQLite connection for the helper's own inspections (the keychain's SQL is not used).
final class SQLiteDatabase {
    private let handle: OpaquePointer

    /// Opens `path` (read-write; `create` makes it if missing) with a 10 s busy wait.
    init(path: String, create: Bool = false) throws {
        var pointer: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        guard sqlite3_open_v2(path, &pointer, flags, nil) == SQLITE_OK, let pointer else {
            sqlite3_close_v2(pointer)
            throw HelperError("cannot open the database \(path)")
        }
        handle = pointer
        sqlite3_busy_timeout(handle, 10_000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Keeps the WAL file when this connection closes (SQLite otherwise deletes it when the last
    /// connection closes), so that the next writer appends to an existing file.
    func keepWriteAheadLog() throws {
        var persist: Int32 = 1
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist) == SQLITE_OK else {
            throw HelperError("cannot keep the WAL file")
        }
    }

    /// Runs `sql` (statements without results).
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw HelperError("\(sql) failed: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    /// The first column of every row `sql` returns, as text.
    func column(_ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw HelperError("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                throw HelperError("\(sql) failed: \(String(cString: sqlite3_errmsg(handle)))")
            }
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
        return values
    }
}
