import CSQLite
import Foundation
import Security

/// What a fresh process finds in the keychain: SQLite's integrity check, the number of rows, and
/// every generic password with whether its secret matches its label.
///
/// ```
/// open 0                      (the status of the first SecItem call)
/// integrity ok
/// rows 3
/// item <account> <label> ok   (or torn)
/// decrypted 3
/// end
/// ```
enum StateDump {
    /// The keychain database under `$XDG_DATA_HOME`.
    static var databasePath: String {
        (ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? "") + "/swift-keychain/login.keychain-db"
    }

    static func render() throws -> String {
        // The first SecItem call opens (or creates) the keychain.
        let (status, items) = PasswordClient.readAll()
        var text = "open \(status == errSecItemNotFound ? errSecSuccess : status)\n"
        let (integrity, rows) = try inspectDatabase()
        text += "integrity \(integrity)\nrows \(rows)\n"
        for item in items {
            let intact = ItemValue.isIntact(label: item.label, secret: item.secret)
            text += "item \(item.account) \(item.label) \(intact ? "ok" : "torn")\n"
        }
        text += "decrypted \(items.count)\nend\n"
        return text
    }

    /// Writes the dump to `path` atomically (a reader never sees half of it).
    static func write(to path: String) throws {
        let temporary = path + ".partial"
        try Data(try render().utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else { throw HelperError("cannot publish \(path)") }
    }

    /// `PRAGMA integrity_check` (its rows joined by `;`) and the number of item rows.
    static func inspectDatabase() throws -> (String, Int) {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(databasePath, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close_v2(handle)
            throw HelperError("cannot open the database")
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 10_000)
        let integrity = try column(db, "PRAGMA integrity_check").joined(separator: ";")
        let rows = Int(try column(db, "SELECT count(*) FROM items").first ?? "") ?? -1
        return (integrity.isEmpty ? "empty" : integrity.replacingOccurrences(of: " ", with: "_"), rows)
    }

    private static func column(_ db: OpaquePointer, _ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw HelperError("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw HelperError("\(sql) failed: \(String(cString: sqlite3_errmsg(db)))") }
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
        return values
    }
}
