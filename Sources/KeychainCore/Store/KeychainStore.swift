import Foundation
import Synchronization
import KeychainSQLite

/// The SQLite database of one keychain: schema and migrations, a pool of connections (one per
/// concurrent caller), and the row-level operations the engine composes.
///
/// Only class names, protection classes, random item UUIDs, keyed tokens and sealed blobs are
/// stored: no attribute value or secret is readable in the file.
final class KeychainStore: Sendable {
    /// The schema version this code writes. Version 1 (the first format) had no protection-class
    /// column and rows sealed under a single root key; `KeychainMigration` upgrades it, since that
    /// needs keys as well as SQL. Version 2 indexed every row's protection class and did not record
    /// whether synchronizable items exist; `version2To3` upgrades it with SQL alone. Version 3
    /// had no item generations and no rollback ledger; `upgradeFromVersion3` adds them, every
    /// existing row at generation 0 (sealed without one).
    /// Version 4 keyed its ledger by UUID and kept the synchronizable-items record in the
    /// `keychain` table; `upgradeFromVersion4` rebuilds the ledger keyed by token, with the
    /// authenticated root that now holds that record.
    /// Version 5 had no search index; `version5To6` adds its table and column, and the engine
    /// fills them (`Keychain.indexPendingRows`), which needs the rows' keys.
    /// Version 6 had no program registry; `version6To7` adds its (empty) table.
    static let schemaVersion: Int64 = 7

    /// A new database's schema. Each index costs every write a page (a frame in the WAL before
    /// its fsync), so only lookups that must not scan have one: the primary-key token (keyed
    /// lookups, uniqueness), the UUID (persistent references), the search index (one entry per
    /// indexed attribute an item has: `AttributeCatalog.searchIndexed`), the rows not yet in
    /// the search index (few, and none once indexed: a partial index), and, among protection
    /// classes, the passcode-only class (whose rows a passcode removal deletes). A class's scan
    /// reads the table in row order and skips other classes' rows without decrypting them.
    private static let schema = """
        CREATE TABLE items (
            rowid INTEGER PRIMARY KEY AUTOINCREMENT,
            class TEXT NOT NULL,
            keyclass TEXT NOT NULL,
            uuid BLOB NOT NULL UNIQUE,
            pk BLOB NOT NULL UNIQUE,
            metadata BLOB NOT NULL,
            secret BLOB,
            gen INTEGER NOT NULL DEFAULT 0,
            idx BLOB
        );
        CREATE TABLE ledger (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
        CREATE INDEX items_of_passcode_class ON items(keyclass) WHERE keyclass = 'akpu';
        CREATE TABLE access_groups (token BLOB PRIMARY KEY, name BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE keychain (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
        \(searchIndexSchema)
        \(programRegistrySchema)
        """

    /// The search index: an entry per (token, row) in token then row order, so one token's rows
    /// come out in row order; and the rows waiting to be indexed.
    private static let searchIndexSchema = """
        CREATE TABLE search_index (token BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (token, item)) WITHOUT ROWID;
        CREATE INDEX items_unindexed ON items(class) WHERE idx IS NULL;
        """

    /// The version 5 → 6 upgrade's SQL: the search index, every existing row waiting to enter
    /// it (`Keychain.indexPendingRows` fills it as the rows' keys allow).
    static let version5To6 = """
        ALTER TABLE items ADD COLUMN idx BLOB;
        \(searchIndexSchema)
        """

    /// The version 6 → 7 upgrade's SQL: the program registry's table, empty.
    static let version6To7 = programRegistrySchema

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

    /// The `keychain` table's entry that schema 4 wrote once a synchronizable item existed (the
    /// ledger's root holds that fact now, authenticated).
    private static let legacySynchronizableItemsKey = "synchronizable-items"

    /// The database file.
    let path: String
    /// The rollback ledger's key and rules.
    let ledger: RollbackLedger
    /// Seals and opens the rows of this store's items.
    let sealer: ItemSealer
    /// The group table's entries this process has made, by group name (`Transaction.registerAccessGroup`).
    let accessGroupEntries = Mutex<[String: AccessGroupEntry]>([:])
    private let pool = Mutex<[PooledConnection]>([])
    /// Whether a checkpoint is scheduled (`scheduleCheckpoint`).
    let checkpointPending = Mutex(false)
    /// The connection scheduled checkpoints run on (opened on first use; its busy wait is short).
    let checkpointConnection = Mutex<CheckpointConnection?>(nil)
    /// The TPM rollback counter the ledger's root is bound to; nil when none is.
    let rollbackCounter = Mutex<RollbackCounter?>(nil)

    /// Opens the database at `path`, creating it (0600, current schema) if it is new, and
    /// upgrades a version-2 or version-3 database. A version-1 database is left at version 1 for
    /// `KeychainMigration`. Its items are sealed and opened with the class keys `keyRing` holds,
    /// and its rollback ledger is keyed by the ring's index keys.
    ///
    /// - Throws: `errSecInvalidKeychain` for a database written by a newer version.
    init(path: String, keyRing: KeyRing) throws {
        self.path = path
        self.ledger = RollbackLedger(key: keyRing.index.ledger)
        self.sealer = ItemSealer(keyRing: keyRing)
        try FileSystem.createPrivateFileIfMissing(path, role: .database)
        Self.registerForExit(self)
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

    /// Creates the database at `path` with the current schema unless it has one. A new keychain
    /// calls it before it publishes its keybag, so that a keybag never stands beside a database
    /// that was never created (`hasSchema`).
    static func prepareSchema(path: String) throws {
        try FileSystem.createPrivateFileIfMissing(path, role: .database)
        do {
            let connection = try openConnection(path: path)
            guard try version(in: connection) == 0 else { return }
            try connection.writeTransaction {
                guard try version(in: connection) == 0 else { return }
                try connection.execute(schema)
                try setVersion(schemaVersion, in: connection)
            }
        } catch let error as SQLiteError {
            throw error.keychainError
        }
    }

    /// Whether the database at `path` exists and has a schema (of any version).
    static func hasSchema(path: String) throws -> Bool {
        guard FileSystem.exists(path) else { return false }
        try FileSystem.requirePrivate(path: path, role: .database)
        // An empty file without a log holds nothing (and opening it would write a header).
        if FileSystem.size(of: path) == 0 && (FileSystem.size(of: path + "-wal") ?? 0) == 0 { return false }
        do {
            return try version(in: try openConnection(path: path)) != 0
        } catch let error as SQLiteError {
            throw error.keychainError
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
        if version <= 3 { try connection.execute(Self.version3To4) }
        if version <= 5 { try connection.execute(Self.version5To6) }
        if version <= 6 { try connection.execute(Self.version6To7) }
        if version <= 3 {
            // Generations and the ledger, every existing row at its generation 0: from now on no
            // row can be put back to a version older than the one it has.
            try buildLedger(in: connection) { _, _ in true }
        } else if version == 4 {
            try upgradeFromVersion4(in: connection)
        }
        try removeValue(forKey: Self.legacySynchronizableItemsKey, in: connection)
        try Self.setVersion(Self.schemaVersion, in: connection)
    }

    /// Rebuilds the ledger keyed by token. A row the schema-4 ledger did not vouch for (rolled
    /// back or altered) enters it unverifiable: the upgrade blesses nothing already refused.
    private func upgradeFromVersion4(in connection: SQLiteConnection) throws {
        let legacy = LegacyRollbackLedger(key: ledger.key)
        let read = try connection.statement("SELECT (SELECT body FROM ledger WHERE id = ?), (SELECT body FROM ledger WHERE id = ?), (SELECT body FROM ledger WHERE id = ?)")
        try buildLedger(in: connection) { uuid, generation in
            let ids = LegacyRollbackLedger.rowIDs(for: uuid)
            let bodies = try read.bind([.integer(ids.root), .integer(ids.node), .integer(ids.leaf)])
                .rows { [$0.blob(0), $0.blob(1), $0.blob(2)] }.first ?? [nil, nil, nil]
            return try legacy.vouched(for: uuid, generation: generation, root: bodies[0], node: bodies[1], leaf: bodies[2])
        }
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
        try Self.openConnection(path: path)
    }

    /// `openConnection()` for the database at `path`.
    static func openConnection(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws -> SQLiteConnection {
        let files = KeychainLocation.databaseFiles(forDatabase: path)
        for file in files { try FileSystem.requirePrivate(path: file.path, role: file.role) }
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        for file in files { try FileSystem.requirePrivate(path: file.path, role: file.role) }
        try connection.execute("PRAGMA cache_size = -\(pageCacheKibibytes)")
        return connection
    }

    /// The bound of each connection's page cache, in KiB (SQLite's default is 2 000). Every read
    /// of an item also reads the rollback ledger's node and leaf above it: 8 MiB keeps the
    /// ledger's nodes (256 pages at most) and the B-trees' upper levels in memory as the rows
    /// come and go, where 2 MB gave each search match or lookup about one more read from the
    /// file. A process's memory stays bounded: it grows with the pages its reads touch, up to
    /// this much per connection, never with the number of items.
    static let pageCacheKibibytes = 8_192

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

    static let columns = "rowid, class, keyclass, uuid, pk, metadata, secret, gen, idx"

    /// The row whose columns start at column `first` of the statement's current result.
    static func readRow(_ statement: SQLiteStatement, from first: Int32) throws -> StoredRow {
        guard let itemClass = statement.text(first + 1).flatMap(ItemClass.init), let keyClass = statement.text(first + 2),
            let uuid = statement.blob(first + 3), let token = statement.blob(first + 4),
            let metadata = statement.blob(first + 5)
        else { throw KeychainError(.decode, "a stored row is malformed") }
        return StoredRow(
            rowID: statement.int64(first), itemClass: itemClass, keyClass: keyClass, uuid: uuid, primaryKeyToken: token,
            metadata: metadata, secret: statement.blob(first + 6), isSynchronizable: false,
            generation: statement.int64(first + 7), searchTokens: statement.blob(first + 8))
    }

    /// A row read inside a transaction, with its standing in the rollback ledger checked.
    private func readCheckedRow(_ statement: SQLiteStatement, in connection: SQLiteConnection) throws -> StoredRow {
        var row = try Self.readRow(statement, from: 0)
        row.isCurrent = try isCurrent(row, in: connection)
        return row
    }

    /// What a lookup by primary-key token finds.
    struct TokenLookup {
        /// The row holding the token, its standing in the ledger checked.
        var row: StoredRow?
        /// No row holds the token, yet the ledger names an item with it (its row was removed), or
        /// cannot vouch that none has it (it was damaged).
        var isMissing: Bool
        /// Whether synchronizable items may exist (the ledger root's record; true when it
        /// cannot be read): a lookup that leaves the synchronizable flag open tries the
        /// synchronizable token only then.
        var synchronizableItemsMayExist: Bool
    }

    /// The row holding primary-key token `token`, read by one statement with the ledger's path
    /// above the token and the keybag UUID the database names, so everything it answers is of
    /// one snapshot even outside a transaction.
    ///
    /// `keysAreCurrent` first sees that keybag UUID (a lookup outside a transaction makes its keys
    /// current with it before the row is opened).
    func lookup(
        primaryKeyToken token: Data, in connection: SQLiteConnection, keysAreCurrent: (Data?) throws -> Void = { _ in }
    ) throws -> TokenLookup {
        guard let ids = RollbackLedger.rowIDs(above: token) else {
            return TokenLookup(row: nil, isMissing: false, synchronizableItemsMayExist: true)
        }
        let statement = try connection.statement(Self.selectByToken)
        try statement.bind([.blob(token), .integer(ids.node), .integer(ids.leaf)])
        defer { statement.reset() }
        guard try statement.step() else { return TokenLookup(row: nil, isMissing: true, synchronizableItemsMayExist: true) }
        try keysAreCurrent(statement.blob(0))
        let found = statement.isNull(4) ? nil : try Self.readRow(statement, from: 4)
        return try statement.withBlob(1) { root in
            try statement.withBlob(2) { node in
                try statement.withBlob(3) { leaf in
                    // The root is read and verified once, for the token's standing and the record.
                    let verifiedRoot = try ledger.root(root)
                    let mayExist = verifiedRoot?.synchronizableItems ?? true
                    guard var row = found else {
                        let standing = try ledger.standing(of: token, root: verifiedRoot, node: node, leaf: leaf)
                        return TokenLookup(row: nil, isMissing: standing != .absent, synchronizableItemsMayExist: mayExist)
                    }
                    row.isCurrent = try ledger.vouches(for: row, verifiedRoot: verifiedRoot, node: node, leaf: leaf)
                    return TokenLookup(row: row, isMissing: false, synchronizableItemsMayExist: mayExist)
                }
            }
        }
    }

    private static let selectByToken = PreparedSQL(
        """
        SELECT (SELECT value FROM keychain WHERE key = 'keybag-uuid'),
            (SELECT body FROM ledger WHERE id = 0), (SELECT body FROM ledger WHERE id = ?2),
            (SELECT body FROM ledger WHERE id = ?3), \(
            columns.split(separator: ",").map { "items." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
        FROM (SELECT 1) LEFT JOIN items ON items.pk = ?1
        """)
    private static let insertRow = PreparedSQL(
        "INSERT INTO items(class, keyclass, uuid, pk, metadata, secret, gen, idx) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    private static let updateRow = PreparedSQL(
        "UPDATE items SET keyclass = ?, pk = ?, metadata = ?, secret = ?, gen = ?, idx = ? WHERE rowid = ?")
    private static let updateSealedParts = PreparedSQL(
        "UPDATE items SET metadata = ?, secret = ?, gen = ? WHERE rowid = ?")
    private static let deleteRow = PreparedSQL("DELETE FROM items WHERE rowid = ? RETURNING pk, idx")
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
        let rowID = try insertRowAndSearchEntries(row, in: connection)
        try recordChange(removing: nil, adding: Self.entry(for: row), synchronizable: row.isSynchronizable, in: connection)
        return rowID
    }

    /// Inserts rows (in the caller's transaction: on a primary-key collision, which throws
    /// `errSecDuplicateItem`, the caller rolls back), then records them all in the rollback
    /// ledger at once (`recordAdditions`: each ledger row touched is written once).
    ///
    /// - Returns: the rows' ids, in order.
    func insert(contentsOf rows: [StoredRow], in connection: SQLiteConnection) throws -> [Int64] {
        let rowIDs = try rows.map { try insertRowAndSearchEntries($0, in: connection) }
        try recordAdditions(rows.map(Self.entry(for:)), synchronizable: rows.contains(where: \.isSynchronizable), in: connection)
        return rowIDs
    }

    /// Inserts a row and its search-index entries, not yet recorded in the ledger.
    private func insertRowAndSearchEntries(_ row: StoredRow, in connection: SQLiteConnection) throws -> Int64 {
        do {
            try connection.statement(Self.insertRow).bind([
                .text(row.itemClass.rawValue), .text(row.keyClass), .blob(row.uuid), .blob(row.primaryKeyToken),
                .blob(row.metadata),
                row.secret.map(SQLiteValue.blob) ?? .null, .integer(row.generation),
                row.searchTokens.map(SQLiteValue.blob) ?? .null,
            ]).run()
        } catch let error as SQLiteError where error.isConstraint {
            throw KeychainError(.duplicateItem, "an item with the same primary key exists")
        }
        let rowID = connection.lastInsertRowID
        try addSearchEntries(row.searchTokens, item: rowID, in: connection)
        return rowID
    }

    /// Replaces a row's protection class, token, search tokens and sealed parts; a primary-key
    /// collision throws `errSecDuplicateItem`. `previous` is the row as it was. When the caller
    /// keeps the row's token and protection class (`sameKey`) and its search tokens are the same,
    /// only the sealed parts are written: no index entry is rewritten, so the update dirties the
    /// row's page alone. Otherwise the search index loses the entries the row no longer has and
    /// gains its new ones.
    func update(_ row: StoredRow, previous: StoredRow, sameKey: Bool = false, in connection: SQLiteConnection) throws {
        let previousToken = previous.primaryKeyToken
        if sameKey && row.searchTokens == previous.searchTokens {
            try connection.statement(Self.updateSealedParts).bind([
                .blob(row.metadata), row.secret.map(SQLiteValue.blob) ?? .null, .integer(row.generation),
                .integer(row.rowID),
            ]).run()
        } else {
            do {
                try connection.statement(Self.updateRow).bind([
                    .text(row.keyClass), .blob(row.primaryKeyToken), .blob(row.metadata),
                    row.secret.map(SQLiteValue.blob) ?? .null, .integer(row.generation),
                    row.searchTokens.map(SQLiteValue.blob) ?? .null, .integer(row.rowID),
                ]).run()
            } catch let error as SQLiteError where error.isConstraint {
                throw KeychainError(.duplicateItem, "the update would give two items the same primary key")
            }
            try replaceSearchEntries(of: row.rowID, from: previous.searchTokens, to: row.searchTokens, in: connection)
        }
        try recordChange(removing: previousToken, adding: Self.entry(for: row), synchronizable: row.isSynchronizable, in: connection)
    }

    /// The ids of the rows whose protection class is one of `keyClasses` (`ak`, `cku`, …).
    func rowIDs(protectedBy keyClasses: [String], in connection: SQLiteConnection) throws -> [Int64] {
        let list = keyClasses.map { _ in "?" }.joined(separator: ", ")
        return try connection.statement("SELECT rowid FROM items WHERE keyclass IN (\(list)) ORDER BY rowid")
            .bind(keyClasses.map { .text($0) }).rows { $0.int64(0) }
    }

    /// Writes a row's sealed parts sealed again under other keys, keeping its generation: the
    /// ledger does not change (the version it names is the same; only the keys differ).
    func replaceSealedKeys(of row: StoredRow, in connection: SQLiteConnection) throws {
        try connection.statement(Self.updateSealedParts).bind([
            .blob(row.metadata), row.secret.map(SQLiteValue.blob) ?? .null, .integer(row.generation), .integer(row.rowID),
        ]).run()
    }

    /// Deletes the row with `rowID`.
    func delete(rowID: Int64, in connection: SQLiteConnection) throws {
        let deleted = try connection.statement(Self.deleteRow).bind([.integer(rowID)]).rows {
            ($0.blob(0) ?? Data(), $0.blob(1))
        }
        for (token, searchTokens) in deleted {
            try recordChange(removing: token, adding: nil, in: connection)
            try removeSearchEntries(searchTokens, item: rowID, in: connection)
        }
    }

    /// Removes the ledger's entry for `token`, whose row is gone: the item it named was removed
    /// from the database behind the keychain's back, and deleting it by its key ends the damage.
    func removeMissingItem(primaryKeyToken token: Data, in connection: SQLiteConnection) throws {
        try recordChange(removing: token, adding: nil, in: connection)
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
        let deleted = try connection.statement("DELETE FROM items WHERE keyclass = 'akpu' RETURNING rowid, pk, idx").rows {
            ($0.int64(0), $0.blob(1) ?? Data(), $0.blob(2))
        }
        for (rowID, token, searchTokens) in deleted {
            try recordChange(removing: token, adding: nil, in: connection)
            try removeSearchEntries(searchTokens, item: rowID, in: connection)
        }
        return deleted.count
    }

    /// Deletes every row (a restore replaces the keychain's contents); with the rows goes the
    /// record that synchronizable items exist (the rows inserted next set it again). The
    /// access-group registry stays, and the new root vouches for it; the program registry stays
    /// with the standing it had (`carriedProgramDigest`).
    func deleteAllRows(in connection: SQLiteConnection) throws {
        let programs = try carriedProgramDigest(in: connection)
        try connection.statement("DELETE FROM items").run()
        try connection.statement("DELETE FROM search_index").run()
        try connection.statement("DELETE FROM ledger").run()
        var root = LedgerRoot()
        root.programs = programs
        root.registry = try registryDigest(of: try storedAccessGroups(in: connection))
        try writeRoot(root, in: connection)
    }

    /// Every row, for whole-keychain operations (dump, export).
    func allRows(in connection: SQLiteConnection) throws -> [StoredRow] {
        try connection.statement("SELECT \(Self.columns) FROM items ORDER BY rowid").rows {
            try readCheckedRow($0, in: connection)
        }
    }

    // MARK: - Access groups

    /// Records that items of a group exist (sealed name under a keyed token); a group new to
    /// the registry changes the digest the ledger's root keeps of it.
    func registerAccessGroup(token: Data, sealedName: Data, in connection: SQLiteConnection) throws {
        try connection.statement(Self.insertAccessGroup).bind([.blob(token), .blob(sealedName)]).run()
        if connection.changes > 0 { try recordRegistry(in: connection) }
    }

    /// Forgets every registered group (the version-1 migration re-registers them under new keys).
    func removeAccessGroups(in connection: SQLiteConnection) throws {
        try connection.statement("DELETE FROM access_groups").run()
        try recordRegistry(in: connection)
    }

    /// Every registered group as (token, sealed name), as the ledger's root vouches for them.
    ///
    /// - Throws: `errSecDecode` when the registry is not what the root records (an entry was
    ///   removed or added behind the keychain's back: lookups across groups would miss items).
    func accessGroups(in connection: SQLiteConnection) throws -> [(token: Data, sealedName: Data)] {
        let entries = try storedAccessGroups(in: connection)
        guard let root = try ledgerRoot(in: connection), try registryDigest(of: entries) == root.registry else {
            throw KeychainError(.decode, "the access-group registry was altered: the keychain is damaged")
        }
        return entries
    }

    /// Every registered group as stored, unchecked.
    func storedAccessGroups(in connection: SQLiteConnection) throws -> [(token: Data, sealedName: Data)] {
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
