import Foundation
import Synchronization

/// The SQLite database of one keychain: schema and migrations, a pool of connections (one per
/// concurrent caller), and the row-level operations the engine composes.
///
/// Only class names, protection classes, random item UUIDs, keyed tokens and sealed blobs are
/// stored: no attribute value or secret is readable in the file.
final class KeychainStore: Sendable {
    /// The schema version this code writes. Version 1 (issue 2) had no protection-class column
    /// and rows sealed under a single root key; `KeychainMigration` upgrades it, since that needs
    /// keys as well as SQL. Version 2 indexed every row's protection class and did not record
    /// whether synchronizable items exist; `version2To3` upgrades it with SQL alone. Version 3
    /// had no item generations and no rollback ledger; `upgradeFromVersion3` adds them, every
    /// existing row at generation 0 (sealed without one).
    static let schemaVersion: Int64 = 4

    /// A new database's schema. Each index costs every write a page (a frame in the WAL before
    /// its fsync), so only lookups that must not scan have one: the primary-key token (keyed
    /// lookups, uniqueness), the UUID (persistent references) and, among protection classes, the
    /// passcode-only class (whose rows a passcode removal deletes). A class's scan reads the
    /// table in row order and skips other classes' rows without decrypting them.
    private static let schema = """
        CREATE TABLE items (
            rowid INTEGER PRIMARY KEY AUTOINCREMENT,
            class TEXT NOT NULL,
            keyclass TEXT NOT NULL,
            uuid BLOB NOT NULL UNIQUE,
            pk BLOB NOT NULL UNIQUE,
            metadata BLOB NOT NULL,
            secret BLOB,
            gen INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE ledger (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
        CREATE INDEX items_of_passcode_class ON items(keyclass) WHERE keyclass = 'akpu';
        CREATE TABLE access_groups (token BLOB PRIMARY KEY, name BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE keychain (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
        """

    /// The SQL half of the version 1 → 2 upgrade (the rows are re-sealed by `KeychainMigration`).
    static let version1To2 = """
        ALTER TABLE items ADD COLUMN keyclass TEXT NOT NULL DEFAULT '';
        CREATE INDEX items_by_keyclass ON items(keyclass);
        """

    /// The version 2 → 3 upgrade: the class index goes, the protection-class index shrinks to the
    /// passcode-only class, and since a version-2 keychain never recorded whether it holds
    /// synchronizable items, one that holds any item is assumed to.
    static let version2To3 = """
        DROP INDEX IF EXISTS items_by_class;
        DROP INDEX items_by_keyclass;
        CREATE INDEX items_of_passcode_class ON items(keyclass) WHERE keyclass = 'akpu';
        INSERT OR IGNORE INTO keychain(key, value)
            SELECT 'synchronizable-items', x'01' WHERE EXISTS (SELECT 1 FROM items);
        """

    /// The version 3 → 4 upgrade's SQL: item generations (0: sealed without one) and the rollback
    /// ledger's table, which `upgradeFromVersion3` then fills.
    static let version3To4 = """
        ALTER TABLE items ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE ledger (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
        """

    /// The `keychain` table's entry that exists once a synchronizable item has been written (it
    /// stays while items remain: lookups that leave the synchronizable flag open try the
    /// synchronizable token only when it exists).
    private static let synchronizableItemsKey = "synchronizable-items"

    /// The database file.
    let path: String
    /// The rollback ledger's key and rules.
    let ledger: RollbackLedger
    private let pool = Mutex<[PooledConnection]>([])

    /// Opens the database at `path`, creating it (0600, current schema) if it is new, and
    /// upgrades a version-2 or version-3 database. A version-1 database is left at version 1 for
    /// `KeychainMigration`.
    ///
    /// - Throws: `errSecInvalidKeychain` for a database written by a newer version.
    init(path: String, ledger: RollbackLedger) throws {
        self.path = path
        self.ledger = ledger
        try FileSystem.createPrivateFileIfMissing(path, role: .database)
        try withConnection { connection in
            // Opening a keychain of the current schema writes nothing (so it works on a full disk
            // too); creating or upgrading one takes the write lock and looks again.
            func needsWrite(_ version: Int64) throws -> Bool {
                guard version <= Self.schemaVersion else {
                    throw KeychainError(.invalidKeychain, "the keychain was written by a newer version")
                }
                return version == 0 || (version >= 2 && version < Self.schemaVersion)
            }
            guard try needsWrite(Self.version(in: connection)) else { return }
            try connection.writeTransaction {
                let version = try Self.version(in: connection)
                guard try needsWrite(version) else { return }
                if version == 0 {
                    try connection.execute(Self.schema)
                    try Self.setVersion(Self.schemaVersion, in: connection)
                } else {
                    try upgrade(from: version, in: connection)
                }
            }
        }
    }

    /// The schema version of the database (`PRAGMA user_version`).
    static func version(in connection: SQLiteConnection) throws -> Int64 {
        try connection.statement("PRAGMA user_version").rows { $0.int64(0) }.first ?? 0
    }

    /// Upgrades a version-2 or version-3 database to the current schema (inside the caller's
    /// transaction); a current one is left alone.
    func upgrade(from version: Int64, in connection: SQLiteConnection) throws {
        if version <= 2 { try connection.execute(Self.version2To3) }
        if version <= 3 { try upgradeFromVersion3(in: connection) }
        try Self.setVersion(Self.schemaVersion, in: connection)
    }

    /// Adds generations and the rollback ledger, which records every existing row at its
    /// generation 0: from now on no row can be put back to a version older than the one it has.
    private func upgradeFromVersion3(in connection: SQLiteConnection) throws {
        try connection.execute(Self.version3To4)
        try buildLedger(in: connection)
    }

    /// Records the schema version.
    static func setVersion(_ version: Int64, in connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA user_version = \(version)")
    }

    /// Runs `body` with a connection no other thread is using.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            // Opening a connection can fail too: its error gets an OSStatus like any other.
            let pooled = try pool.withLock { $0.popLast() } ?? PooledConnection(try openConnection())
            defer { pool.withLock { $0.append(pooled) } }
            return try body(pooled.connection)
        } catch let error as SQLiteError {
            throw error.keychainError
        }
    }

    /// A new connection, opened only when the database, its write-ahead log and its
    /// shared-memory index are private to the calling user, before SQLite reads them (a file
    /// planted with a wider mode is refused, never used) and again once SQLite has opened or
    /// created them.
    ///
    /// - Throws: `errSecWrPerm` naming the file and the fix.
    private func openConnection() throws -> SQLiteConnection {
        let files = KeychainLocation.databaseFiles(forDatabase: path)
        for file in files { try FileSystem.requirePrivate(path: file.path, role: file.role) }
        let connection = try SQLiteConnection(path: path)
        for file in files { try FileSystem.requirePrivate(path: file.path, role: file.role) }
        return connection
    }

    // MARK: - Keychain metadata

    /// The value stored under `key`, if any.
    func value(forKey key: String, in connection: SQLiteConnection) throws -> Data? {
        try connection.statement("SELECT value FROM keychain WHERE key = ?")
            .bind([.text(key)]).rows { $0.blob(0) ?? Data() }.first
    }

    /// Stores `value` under `key`, replacing any value there.
    func setValue(_ value: Data, forKey key: String, in connection: SQLiteConnection) throws {
        try connection.statement("INSERT OR REPLACE INTO keychain(key, value) VALUES (?, ?)")
            .bind([.text(key), .blob(value)]).run()
    }

    /// Removes the value stored under `key`.
    func removeValue(forKey key: String, in connection: SQLiteConnection) throws {
        try connection.statement("DELETE FROM keychain WHERE key = ?").bind([.text(key)]).run()
    }

    /// Stores `value` under `key` unless a value is there; returns the stored value.
    func establishValue(_ value: Data, forKey key: String, in connection: SQLiteConnection) throws -> Data {
        try connection.statement("INSERT OR IGNORE INTO keychain(key, value) VALUES (?, ?)")
            .bind([.text(key), .blob(value)]).run()
        return try connection.statement("SELECT value FROM keychain WHERE key = ?")
            .bind([.text(key)]).rows { $0.blob(0) ?? Data() }.first ?? Data()
    }

    // MARK: - Rows

    private static let columns = "rowid, class, keyclass, uuid, pk, metadata, secret, gen"

    /// The row whose columns start at column `first` of the statement's current result.
    private static func readRow(_ statement: SQLiteStatement, from first: Int32) throws -> StoredRow {
        guard let itemClass = statement.text(first + 1).flatMap(ItemClass.init), let keyClass = statement.text(first + 2),
            let uuid = statement.blob(first + 3), let token = statement.blob(first + 4),
            let metadata = statement.blob(first + 5)
        else { throw KeychainError(.decode, "a stored row is malformed") }
        return StoredRow(
            rowID: statement.int64(first), itemClass: itemClass, keyClass: keyClass, uuid: uuid, primaryKeyToken: token,
            metadata: metadata, secret: statement.blob(first + 6), isSynchronizable: false,
            generation: statement.int64(first + 7))
    }

    /// A row read inside a transaction, with its standing in the rollback ledger checked.
    private func readCheckedRow(_ statement: SQLiteStatement, in connection: SQLiteConnection) throws -> StoredRow {
        var row = try Self.readRow(statement, from: 0)
        row.isCurrent = try isCurrent(row, in: connection)
        return row
    }

    /// The row holding primary-key token `token`, if any (a point lookup on the unique index).
    func row(primaryKeyToken token: Data, in connection: SQLiteConnection) throws -> StoredRow? {
        try connection.statement(Self.selectByToken).bind([.blob(token)]).rows { try readCheckedRow($0, in: connection) }.first
    }

    /// The row holding `token`, and whether synchronizable items may exist, read by one statement
    /// (so the answer is as current as the row, whichever process wrote last): a lookup that
    /// leaves the synchronizable flag open tries the second token only when they may. The same
    /// statement reads the row's path in the rollback ledger, so the check sees the same
    /// snapshot even outside a transaction.
    func rowAndSynchronizableItems(
        primaryKeyToken token: Data, in connection: SQLiteConnection
    ) throws -> (row: StoredRow?, synchronizableItemsMayExist: Bool) {
        let statement = try connection.statement(Self.selectByTokenAndSynchronizableItems)
        try statement.bind([.blob(token)])
        defer { statement.reset() }
        guard try statement.step() else { return (nil, true) }
        let mayExist = statement.int64(0) != 0
        guard !statement.isNull(1) else { return (nil, mayExist) }
        var row = try Self.readRow(statement, from: 1)
        row.isCurrent = try statement.withBlob(9) { root in
            try statement.withBlob(10) { node in
                try statement.withBlob(11) { leaf in
                    try ledger.vouches(for: row.uuid, generation: row.generation, root: root, node: node, leaf: leaf)
                }
            }
        }
        return (row, mayExist)
    }

    private static let selectByToken = PreparedSQL("SELECT \(columns) FROM items WHERE pk = ?")
    private static let selectByTokenAndSynchronizableItems = PreparedSQL(
        """
        SELECT EXISTS (SELECT 1 FROM keychain WHERE key = '\(synchronizableItemsKey)'), \(
            columns.split(separator: ",").map { "items." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")),
            \(ledgerPathColumns)
        FROM (SELECT 1) LEFT JOIN items ON items.pk = ?
        """)
    private static let insertRow = PreparedSQL(
        "INSERT INTO items(class, keyclass, uuid, pk, metadata, secret, gen) VALUES (?, ?, ?, ?, ?, ?, ?)")
    private static let updateRow = PreparedSQL(
        "UPDATE items SET keyclass = ?, pk = ?, metadata = ?, secret = ?, gen = ? WHERE rowid = ?")
    private static let updateSealedParts = PreparedSQL(
        "UPDATE items SET metadata = ?, secret = ?, gen = ? WHERE rowid = ?")
    private static let deleteRow = PreparedSQL("DELETE FROM items WHERE rowid = ? RETURNING uuid")
    private static let insertSynchronizableItems = PreparedSQL(
        "INSERT OR IGNORE INTO keychain(key, value) VALUES ('\(synchronizableItemsKey)', x'01')")
    private static let insertAccessGroup = PreparedSQL("INSERT OR IGNORE INTO access_groups(token, name) VALUES (?, ?)")

    /// The row with item UUID `uuid`.
    func row(uuid: Data, in connection: SQLiteConnection) throws -> StoredRow? {
        try connection.statement("SELECT \(Self.columns) FROM items WHERE uuid = ?")
            .bind([.blob(uuid)]).rows { try readCheckedRow($0, in: connection) }.first
    }

    /// The row with row id `rowID`.
    func row(rowID: Int64, in connection: SQLiteConnection) throws -> StoredRow? {
        try connection.statement("SELECT \(Self.columns) FROM items WHERE rowid = ?")
            .bind([.integer(rowID)]).rows { try readCheckedRow($0, in: connection) }.first
    }

    /// Visits every row of `itemClass` in row-id order until `visit` returns false.
    ///
    /// The rows' standing in the rollback ledger is not checked (`isCurrent` is false, so they do
    /// not open): a scan rules most rows out from their attributes first, and checks the rest
    /// with `isCurrent(_:in:)`.
    func scan(itemClass: ItemClass, in connection: SQLiteConnection, _ visit: (StoredRow) throws -> Bool) throws {
        let statement = try connection.statement(
            "SELECT \(Self.columns) FROM items WHERE class = ? ORDER BY rowid")
        try statement.bind([.text(itemClass.rawValue)])
        defer { statement.reset() }
        while try statement.step() {
            if try !visit(try Self.readRow(statement, from: 0)) { break }
        }
    }

    /// Inserts a row; a primary-key collision throws `errSecDuplicateItem`.
    func insert(_ row: StoredRow, in connection: SQLiteConnection) throws -> Int64 {
        if row.isSynchronizable { try recordSynchronizableItems(in: connection) }
        do {
            try connection.statement(Self.insertRow).bind([
                .text(row.itemClass.rawValue), .text(row.keyClass), .blob(row.uuid), .blob(row.primaryKeyToken),
                .blob(row.metadata),
                row.secret.map(SQLiteValue.blob) ?? .null, .integer(row.generation),
            ]).run()
        } catch let error as SQLiteError where error.isConstraint {
            throw KeychainError(.duplicateItem, "an item with the same primary key exists")
        }
        let rowID = connection.lastInsertRowID
        try recordGeneration(row.generation, of: row.uuid, in: connection)
        return rowID
    }

    /// Replaces a row's protection class, token and sealed parts; a primary-key collision throws
    /// `errSecDuplicateItem`. With `sameKey` (the caller keeps the row's token and protection
    /// class) only the sealed parts are written: no index entry is rewritten, so the update
    /// dirties the row's page alone.
    func update(_ row: StoredRow, sameKey: Bool = false, in connection: SQLiteConnection) throws {
        if row.isSynchronizable { try recordSynchronizableItems(in: connection) }
        if sameKey {
            try connection.statement(Self.updateSealedParts).bind([
                .blob(row.metadata), row.secret.map(SQLiteValue.blob) ?? .null, .integer(row.generation),
                .integer(row.rowID),
            ]).run()
        } else {
            do {
                try connection.statement(Self.updateRow).bind([
                    .text(row.keyClass), .blob(row.primaryKeyToken), .blob(row.metadata),
                    row.secret.map(SQLiteValue.blob) ?? .null, .integer(row.generation), .integer(row.rowID),
                ]).run()
            } catch let error as SQLiteError where error.isConstraint {
                throw KeychainError(.duplicateItem, "the update would give two items the same primary key")
            }
        }
        try recordGeneration(row.generation, of: row.uuid, in: connection)
    }

    /// Deletes the row with `rowID`.
    func delete(rowID: Int64, in connection: SQLiteConnection) throws {
        for uuid in try connection.statement(Self.deleteRow).bind([.integer(rowID)]).rows({ $0.blob(0) ?? Data() }) {
            try recordGeneration(nil, of: uuid, in: connection)
        }
    }

    /// Whether any row of the passcode-only protection class exists.
    func hasPasscodeClassRows(in connection: SQLiteConnection) throws -> Bool {
        try connection.statement("SELECT EXISTS (SELECT 1 FROM items WHERE keyclass = 'akpu')").rows { $0.int64(0) != 0 }
            .first ?? false
    }

    /// Deletes every row of the passcode-only protection class (`akpu`, through its partial
    /// index); returns how many.
    @discardableResult
    func deletePasscodeClassRows(in connection: SQLiteConnection) throws -> Int {
        let deleted = try connection.statement("DELETE FROM items WHERE keyclass = 'akpu' RETURNING uuid").rows {
            $0.blob(0) ?? Data()
        }
        for uuid in deleted { try recordGeneration(nil, of: uuid, in: connection) }
        return deleted.count
    }

    /// Deletes every row (a restore replaces the keychain's contents); with the rows goes the
    /// record that synchronizable items exist (the rows inserted next set it again).
    func deleteAllRows(in connection: SQLiteConnection) throws {
        try connection.statement("DELETE FROM items").run()
        try connection.statement("DELETE FROM ledger").run()
        try removeValue(forKey: Self.synchronizableItemsKey, in: connection)
    }

    /// Records, in the writing transaction, that a synchronizable item exists.
    private func recordSynchronizableItems(in connection: SQLiteConnection) throws {
        try connection.statement(Self.insertSynchronizableItems).run()
    }

    /// Every row, for whole-keychain operations (dump, export).
    func allRows(in connection: SQLiteConnection) throws -> [StoredRow] {
        try connection.statement("SELECT \(Self.columns) FROM items ORDER BY rowid").rows {
            try readCheckedRow($0, in: connection)
        }
    }

    // MARK: - Access groups

    /// Records that items of a group exist (sealed name under a keyed token).
    func registerAccessGroup(token: Data, sealedName: Data, in connection: SQLiteConnection) throws {
        try connection.statement(Self.insertAccessGroup).bind([.blob(token), .blob(sealedName)]).run()
    }

    /// Forgets every registered group (the version-1 migration re-registers them under new keys).
    func removeAccessGroups(in connection: SQLiteConnection) throws {
        try connection.statement("DELETE FROM access_groups").run()
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
