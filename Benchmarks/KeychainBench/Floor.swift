import COpenSSLLinked
import CSQLiteLinked
import Foundation

/// The floor every figure is divided by, measured in the same run: raw SQLite with the keychain's
/// journal and sync settings, plus one AES-256-GCM operation on as many bytes as a keychain row
/// holds. Nothing here is keyed, validated or access-checked: it is the least any encrypted
/// store must do.
final class Floor {
    private let db: OpaquePointer
    /// The search floor's database, apart so that the size floor counts one table.
    private let searchDB: OpaquePointer
    private let blobSize: Int
    private let key = [UInt8](repeating: 7, count: 32)
    private let nonce = [UInt8](repeating: 9, count: 12)
    private let sealed: [UInt8]
    private var select: OpaquePointer?
    private var insert: OpaquePointer?
    private var update: OpaquePointer?
    private var delete: OpaquePointer?
    private var search: OpaquePointer?

    /// A floor table of `items` rows whose blobs have `blobSize` bytes.
    init(path: String, items: Int, blobSize: Int) {
        self.blobSize = blobSize
        var handle: OpaquePointer?
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        db = handle!
        var searchHandle: OpaquePointer?
        sqlite3_open_v2(path + "-search", &searchHandle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        searchDB = searchHandle!
        sealed = Floor.gcm(encrypt: true, key: key, nonce: nonce, input: [UInt8](repeating: 1, count: blobSize))
        exec("PRAGMA journal_mode = WAL")
        exec("PRAGMA synchronous = FULL")
        exec("CREATE TABLE IF NOT EXISTS floor (rowid INTEGER PRIMARY KEY AUTOINCREMENT, pk BLOB NOT NULL UNIQUE, blob BLOB)")
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO floor(pk, blob) VALUES (?, ?)", -1, &statement, nil)
        exec("BEGIN")
        for index in 0..<items {
            bind(statement, Floor.key(index), sealed)
            sqlite3_step(statement)
            sqlite3_reset(statement)
            if index % 50_000 == 49_999 {
                exec("COMMIT")
                exec("BEGIN")
            }
        }
        exec("COMMIT")
        sqlite3_finalize(statement)
        // The search floor: the same rows in a table of their own (so the write floors keep one
        // index), each with a 16-byte group token shared by `Workload.groupSize` rows, indexed.
        Floor.exec(searchDB, "PRAGMA journal_mode = WAL")
        Floor.exec(searchDB, "CREATE TABLE IF NOT EXISTS floor_search (rowid INTEGER PRIMARY KEY, grp BLOB NOT NULL, blob BLOB)")
        Floor.exec(searchDB, "CREATE INDEX IF NOT EXISTS floor_search_grp ON floor_search(grp)")
        sqlite3_prepare_v2(searchDB, "INSERT INTO floor_search(grp, blob) VALUES (?, ?)", -1, &statement, nil)
        Floor.exec(searchDB, "BEGIN")
        let groups = max(1, items / Workload.groupSize)
        for index in 0..<items {
            bind(statement, Floor.groupToken(index % groups), sealed)
            sqlite3_step(statement)
            sqlite3_reset(statement)
            if index % 50_000 == 49_999 {
                Floor.exec(searchDB, "COMMIT")
                Floor.exec(searchDB, "BEGIN")
            }
        }
        Floor.exec(searchDB, "COMMIT")
        Floor.exec(searchDB, "PRAGMA wal_checkpoint(TRUNCATE)")
        sqlite3_finalize(statement)
        sqlite3_prepare_v2(searchDB, "SELECT blob FROM floor_search WHERE grp = ?", -1, &search, nil)
        sqlite3_prepare_v2(db, "SELECT blob FROM floor WHERE pk = ?", -1, &select, nil)
        sqlite3_prepare_v2(db, "INSERT INTO floor(pk, blob) VALUES (?, ?)", -1, &insert, nil)
        sqlite3_prepare_v2(db, "UPDATE floor SET blob = ? WHERE pk = ?", -1, &update, nil)
        sqlite3_prepare_v2(db, "DELETE FROM floor WHERE pk = ?", -1, &delete, nil)
    }

    deinit {
        for statement in [select, insert, update, delete, search] { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
        sqlite3_close_v2(searchDB)
    }

    /// Copies the WAL into the database and empties it.
    func checkpoint() { exec("PRAGMA wal_checkpoint(TRUNCATE)") }

    /// The same for another database (the keychain's), through a connection of its own.
    static func checkpoint(path: String) {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { return }
        sqlite3_busy_timeout(handle, 10_000)
        sqlite3_exec(handle, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
        sqlite3_close_v2(handle)
    }

    /// The average length of a keychain row's sealed attributes and secret.
    static func averageSealedBytes(path: String) -> Int {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return 0 }
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, "SELECT avg(length(metadata) + ifnull(length(secret), 0)) FROM items", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_double(statement, 0)) : 0
    }

    /// The 32-byte key of row `index` (like the keychain's primary-key token).
    static func key(_ index: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        withUnsafeBytes(of: UInt64(index).bigEndian) { bytes.replaceSubrange(24..<32, with: $0) }
        bytes[0] = 0xA5
        return bytes
    }

    /// Point SELECT on the unique index plus one decrypt.
    @inline(never)
    func lookup(_ index: Int) {
        sqlite3_bind_blob(select, 1, Floor.key(index), 32, nil)
        if sqlite3_step(select) == SQLITE_ROW {
            let count = Int(sqlite3_column_bytes(select, 0))
            let bytes = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 0), count: count))
            _ = Floor.gcm(encrypt: false, key: key, nonce: nonce, input: bytes)
        }
        sqlite3_reset(select)
    }

    /// The 16-byte token of search group `group` (like a search-index token).
    static func groupToken(_ group: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0x5A, count: 16)
        withUnsafeBytes(of: UInt64(group).bigEndian) { bytes.replaceSubrange(8..<16, with: $0) }
        return bytes
    }

    /// An indexed SELECT of one group's rows (`Workload.groupSize` of them) plus one decrypt each.
    @inline(never)
    func searchGroup(_ group: Int) -> Int {
        let token = Floor.groupToken(group)
        sqlite3_bind_blob(search, 1, token, 16, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        var found = 0
        while sqlite3_step(search) == SQLITE_ROW {
            let count = Int(sqlite3_column_bytes(search, 0))
            let bytes = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(search, 0), count: count))
            _ = Floor.gcm(encrypt: false, key: key, nonce: nonce, input: bytes)
            found += 1
        }
        sqlite3_reset(search)
        return found
    }

    /// One committed INSERT plus one encrypt.
    @inline(never)
    func add(_ index: Int) {
        let blob = Floor.gcm(encrypt: true, key: key, nonce: nonce, input: [UInt8](repeating: 2, count: blobSize))
        exec("BEGIN IMMEDIATE")
        bind(insert, Floor.key(index), blob)
        sqlite3_step(insert)
        sqlite3_reset(insert)
        exec("COMMIT")
    }

    /// One committed UPDATE by key plus one encrypt.
    @inline(never)
    func update(_ index: Int, fill: UInt8 = 3) {
        // SQLite skips rewriting a row whose new content equals the old: each pass of updates
        // over the same rows uses its own `fill`.
        let blob = Floor.gcm(encrypt: true, key: key, nonce: nonce, input: [UInt8](repeating: fill, count: blobSize))
        exec("BEGIN IMMEDIATE")
        bind(update, blob, Floor.key(index))
        sqlite3_step(update)
        sqlite3_reset(update)
        exec("COMMIT")
    }

    /// One committed DELETE by key.
    @inline(never)
    func delete(_ index: Int) {
        exec("BEGIN IMMEDIATE")
        sqlite3_bind_blob(delete, 1, Floor.key(index), 32, nil)
        sqlite3_step(delete)
        sqlite3_reset(delete)
        exec("COMMIT")
    }

    /// `update`, then the checkpoint the keychain runs after a write that replaces sealed data
    /// (the log copied into the database and truncated, so the old ciphertext is gone).
    @inline(never)
    func updateCheckpointed(_ index: Int) {
        update(index, fill: 4)
        checkpoint()
    }

    /// `delete`, then the same checkpoint.
    @inline(never)
    func deleteCheckpointed(_ index: Int) {
        delete(index)
        checkpoint()
    }

    private func exec(_ sql: String) { Floor.exec(db, sql) }

    private static func exec(_ db: OpaquePointer, _ sql: String) { sqlite3_exec(db, sql, nil, nil, nil) }

    private func bind(_ statement: OpaquePointer?, _ first: [UInt8], _ second: [UInt8]) {
        sqlite3_bind_blob(statement, 1, first, Int32(first.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        sqlite3_bind_blob(statement, 2, second, Int32(second.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    /// One AES-256-GCM operation (context set-up included, as any caller pays it).
    static func gcm(encrypt: Bool, key: [UInt8], nonce: [UInt8], input: [UInt8]) -> [UInt8] {
        let context = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var length: Int32 = 0
        if encrypt {
            EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
            EVP_EncryptUpdate(context, &output, &length, input, Int32(input.count))
            EVP_EncryptFinal_ex(context, &output[Int(length)], &length)
            return output
        }
        let body = max(0, input.count - 16)
        EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
        EVP_DecryptUpdate(context, &output, &length, input, Int32(body))
        var tag = Array(input.suffix(16))
        EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag)
        EVP_DecryptFinal_ex(context, &output[Int(length)], &length)
        return Array(output.prefix(body))
    }
}
