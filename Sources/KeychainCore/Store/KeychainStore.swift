import Foundation
import Synchronization

/// The SQLite database of one keychain: schema and migrations, a pool of connections (one per
/// concurrent caller), and the row-level operations the engine composes.
///
/// Only class names, random item UUIDs, keyed tokens and sealed blobs are stored: no attribute
/// value or secret is readable in the file.
final class KeychainStore: Sendable {
    /// The schema version this code writes; `migrations[n]` upgrades version n to n + 1.
    static let schemaVersion: Int64 = 1

    private static let migrations: [String] = [
        // 0 → 1: items, access groups, keychain metadata.
        """
        CREATE TABLE items (
            rowid INTEGER PRIMARY KEY AUTOINCREMENT,
            class TEXT NOT NULL,
            uuid BLOB NOT NULL UNIQUE,
            pk BLOB NOT NULL UNIQUE,
            metadata BLOB NOT NULL,
            secret BLOB
        );
        CREATE INDEX items_by_class ON items(class, rowid);
        CREATE TABLE access_groups (token BLOB PRIMARY KEY, name BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE keychain (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
        """
    ]

    /// The database file.
    let path: String
    private let pool = Mutex<[PooledConnection]>([])

    /// Opens the database at `path`, creating (0600) and migrating it as needed.
    init(path: String) throws {
        self.path = path
        try FileSystem.touchPrivateFile(path)
        try FileSystem.requireNotWritableByOthers(path)
        try withConnection { connection in
            try connection.writeTransaction {
                let version = try connection.statement("PRAGMA user_version").rows { $0.int64(0) }.first ?? 0
                guard version <= Self.schemaVersion else {
                    throw KeychainError(.invalidKeychain, "the keychain was written by a newer version")
                }
                for step in Int(version)..<Int(Self.schemaVersion) {
                    try connection.execute(Self.migrations[step])
                }
                if version != Self.schemaVersion {
                    try connection.execute("PRAGMA user_version = \(Self.schemaVersion)")
                }
            }
        }
    }

    /// Runs `body` with a connection no other thread is using.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            // Opening a connection can fail too: its error gets an OSStatus like any other.
            let pooled = try pool.withLock { $0.popLast() } ?? PooledConnection(try SQLiteConnection(path: path))
            defer { pool.withLock { $0.append(pooled) } }
            return try body(pooled.connection)
        } catch let error as SQLiteError {
            throw error.keychainError
        }
    }

    // MARK: - Keychain metadata

    /// Stores `value` under `key` unless a value is there; returns the stored value.
    func establishValue(_ value: Data, forKey key: String, in connection: SQLiteConnection) throws -> Data {
        try connection.statement("INSERT OR IGNORE INTO keychain(key, value) VALUES (?, ?)")
            .bind([.text(key), .blob(value)]).run()
        return try connection.statement("SELECT value FROM keychain WHERE key = ?")
            .bind([.text(key)]).rows { $0.blob(0) ?? Data() }.first ?? Data()
    }

    // MARK: - Rows

    private static let columns = "rowid, class, uuid, pk, metadata, secret"

    private static func readRow(_ statement: SQLiteStatement) throws -> StoredRow {
        guard let itemClass = statement.text(1).flatMap(ItemClass.init), let uuid = statement.blob(2),
            let token = statement.blob(3), let metadata = statement.blob(4)
        else { throw KeychainError(.decode, "a stored row is malformed") }
        return StoredRow(
            rowID: statement.int64(0), itemClass: itemClass, uuid: uuid, primaryKeyToken: token,
            metadata: metadata, secret: statement.blob(5))
    }

    /// Rows whose primary-key token is one of `tokens`, in row order: one statement on the unique index.
    func rows(primaryKeyTokens tokens: [Data], in connection: SQLiteConnection) throws -> [StoredRow] {
        guard !tokens.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: tokens.count).joined(separator: ", ")
        return try connection.statement("SELECT \(Self.columns) FROM items WHERE pk IN (\(placeholders))")
            .bind(tokens.map(SQLiteValue.blob)).rows(Self.readRow).sorted { $0.rowID < $1.rowID }
    }

    /// The row with item UUID `uuid`.
    func row(uuid: Data, in connection: SQLiteConnection) throws -> StoredRow? {
        try connection.statement("SELECT \(Self.columns) FROM items WHERE uuid = ?")
            .bind([.blob(uuid)]).rows(Self.readRow).first
    }

    /// The row with row id `rowID`.
    func row(rowID: Int64, in connection: SQLiteConnection) throws -> StoredRow? {
        try connection.statement("SELECT \(Self.columns) FROM items WHERE rowid = ?")
            .bind([.integer(rowID)]).rows(Self.readRow).first
    }

    /// Visits every row of `itemClass` in row-id order until `visit` returns false.
    func scan(itemClass: ItemClass, in connection: SQLiteConnection, _ visit: (StoredRow) throws -> Bool) throws {
        let statement = try connection.statement(
            "SELECT \(Self.columns) FROM items WHERE class = ? ORDER BY rowid")
        try statement.bind([.text(itemClass.rawValue)])
        defer { statement.reset() }
        while try statement.step() {
            if try !visit(try Self.readRow(statement)) { break }
        }
    }

    /// Inserts a row; a primary-key collision throws `errSecDuplicateItem`.
    func insert(_ row: StoredRow, in connection: SQLiteConnection) throws -> Int64 {
        do {
            try connection.statement(
                "INSERT INTO items(class, uuid, pk, metadata, secret) VALUES (?, ?, ?, ?, ?)"
            ).bind([
                .text(row.itemClass.rawValue), .blob(row.uuid), .blob(row.primaryKeyToken), .blob(row.metadata),
                row.secret.map(SQLiteValue.blob) ?? .null,
            ]).run()
        } catch let error as SQLiteError where error.isConstraint {
            throw KeychainError(.duplicateItem, "an item with the same primary key exists")
        }
        return connection.lastInsertRowID
    }

    /// Replaces a row's token and sealed parts; a primary-key collision throws `errSecDuplicateItem`.
    func update(_ row: StoredRow, in connection: SQLiteConnection) throws {
        do {
            try connection.statement("UPDATE items SET pk = ?, metadata = ?, secret = ? WHERE rowid = ?")
                .bind([
                    .blob(row.primaryKeyToken), .blob(row.metadata), row.secret.map(SQLiteValue.blob) ?? .null,
                    .integer(row.rowID),
                ]).run()
        } catch let error as SQLiteError where error.isConstraint {
            throw KeychainError(.duplicateItem, "the update would give two items the same primary key")
        }
    }

    /// Deletes the row with `rowID`.
    func delete(rowID: Int64, in connection: SQLiteConnection) throws {
        try connection.statement("DELETE FROM items WHERE rowid = ?").bind([.integer(rowID)]).run()
    }

    /// Every row, for whole-keychain operations (dump, export).
    func allRows(in connection: SQLiteConnection) throws -> [StoredRow] {
        try connection.statement("SELECT \(Self.columns) FROM items ORDER BY rowid").rows(Self.readRow)
    }

    // MARK: - Access groups

    /// Records that items of a group exist (sealed name under a keyed token).
    func registerAccessGroup(token: Data, sealedName: Data, in connection: SQLiteConnection) throws {
        try connection.statement("INSERT OR IGNORE INTO access_groups(token, name) VALUES (?, ?)")
            .bind([.blob(token), .blob(sealedName)]).run()
    }

    /// Every registered group as (token, sealed name).
    func accessGroups(in connection: SQLiteConnection) throws -> [(token: Data, sealedName: Data)] {
        try connection.statement("SELECT token, name FROM access_groups").rows {
            ($0.blob(0) ?? Data(), $0.blob(1) ?? Data())
        }
    }
}

/// A connection handed between threads by the pool; only one thread uses it at a time.
private final class PooledConnection: @unchecked Sendable {
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
}
