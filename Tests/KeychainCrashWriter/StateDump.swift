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
        let database = try SQLiteDatabase(path: databasePath)
        let integrity = try database.column("PRAGMA integrity_check").joined(separator: ";")
        let rows = Int(try database.column("SELECT count(*) FROM items").first ?? "") ?? -1
        let word = integrity.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "\n", with: ";")
        return (integrity.isEmpty ? "empty" : word, rows)
    }
}
