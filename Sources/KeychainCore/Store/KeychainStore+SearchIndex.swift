import Foundation
import KeychainSQLite

/// The search index: for each indexed attribute an item has, an entry naming the item's row
/// under the keyed token of the attribute's value (`SearchIndexEncoding`). It narrows a search to
/// the rows that may match; the engine still opens and matches each one, so an entry that names
/// the wrong row costs a decryption and nothing else.
extension KeychainStore {
    private static let insertEntry = PreparedSQL("INSERT OR IGNORE INTO search_index(token, item) VALUES (?, ?)")
    private static let deleteEntry = PreparedSQL("DELETE FROM search_index WHERE token = ? AND item = ?")
    private static let setTokens = PreparedSQL("UPDATE items SET idx = ? WHERE rowid = ? AND idx IS NULL")

    /// Adds the entries of a row's tokens.
    func addSearchEntries(_ tokens: Data?, item: Int64, in connection: SQLiteConnection) throws {
        guard let tokens else { return }
        for token in SearchIndexEncoding.split(tokens) {
            try connection.statement(Self.insertEntry).bind([.blob(token), .integer(item)]).run()
        }
    }

    /// Removes the entries of a deleted row's tokens.
    func removeSearchEntries(_ tokens: Data?, item: Int64, in connection: SQLiteConnection) throws {
        guard let tokens else { return }
        for token in SearchIndexEncoding.split(tokens) {
            try connection.statement(Self.deleteEntry).bind([.blob(token), .integer(item)]).run()
        }
    }

    /// Brings a row's entries from `old` tokens to `new` ones, touching only those that differ.
    func replaceSearchEntries(of item: Int64, from old: Data?, to new: Data?, in connection: SQLiteConnection) throws {
        guard old != new else { return }
        let before = old.map(SearchIndexEncoding.split) ?? []
        let after = new.map(SearchIndexEncoding.split) ?? []
        for token in before where !after.contains(token) {
            try connection.statement(Self.deleteEntry).bind([.blob(token), .integer(item)]).run()
        }
        for token in after where !before.contains(token) {
            try connection.statement(Self.insertEntry).bind([.blob(token), .integer(item)]).run()
        }
    }

    /// The statements selecting a class's rows that hold the first token and every other one,
    /// in row order (the index keeps one token's entries in row order: no sort), each row with
    /// the bodies of the ledger node and leaf above its primary-key token, so that its standing
    /// is checked without a statement of its own.
    private static let searchStatements: [PreparedSQL] = (1...maximumSearchTokens).map { count in
        let also = (1..<count).map { index in
            " AND EXISTS (SELECT 1 FROM search_index WHERE token = ?\(index + 2) AND item = s.item)"
        }.joined()
        let columns = columns.split(separator: ",").map { "items." + $0.trimmingCharacters(in: .whitespaces) }
        let first = byteValue(of: "items.pk", at: 1)
        let second = byteValue(of: "items.pk", at: 2)
        let node = "(SELECT body FROM ledger WHERE id = \(RollbackLedger.firstNodeID) + \(first))"
        let leaf = "(SELECT body FROM ledger WHERE id = \(RollbackLedger.firstLeafID) + \(first) * 256 + \(second))"
        // An entry whose row is gone comes out as a row of NULLs (`searchRows` counts them).
        return PreparedSQL(
            "SELECT \(columns.joined(separator: ", ")), \(node), \(leaf)"
                + " FROM search_index AS s LEFT JOIN items ON items.rowid = s.item"
                + " WHERE s.token = ?1 AND (items.class = ?2 OR items.rowid IS NULL)\(also) ORDER BY s.item")
    }

    /// The SQL value of the byte at 1-based `position` of the blob `column`, as an integer
    /// (`RollbackLedger.rowID` in SQL): its offset in a blob listing the 256 byte values in
    /// order, since SQLite has no function from a byte to its number. A blob too short gives a
    /// value that names no ledger row of its path, and such a token has no path anyway.
    static func byteValue(of column: String, at position: Int) -> String {
        "(instr(\(byteValues), substr(\(column), \(position), 1)) - 1)"
    }

    /// The blob literal of the bytes 0x00 … 0xff in order.
    private static let byteValues = "X'" + (0...255).map { byte in
        let digits = Array("0123456789ABCDEF")
        return String([digits[byte >> 4], digits[byte & 0xf]])
    }.joined() + "'"

    /// The most tokens one search statement checks (the first drives it; the others are a point
    /// lookup each per row it selects).
    static let maximumSearchTokens = 3

    private static let selectUnindexed = PreparedSQL(
        "SELECT \(columns) FROM items WHERE class = ?1 AND idx IS NULL AND rowid > ?2 ORDER BY rowid LIMIT ?3")

    /// Visits, in row order until `visit` returns false, every row of `itemClass` whose entries
    /// include all of `tokens` (the first selects, the others filter; at most
    /// `maximumSearchTokens`, else `errSecParam`), and every row of the class not yet indexed
    /// (it may match).
    ///
    /// As with `scan`, the rows' standing in the rollback ledger is not checked before the visit
    /// (`isCurrent` is false): `visit` gets, with each row, a function that checks it, as
    /// `isCurrent(_:in:)` would, from the ledger bodies the search read with the row and the
    /// root read once per search (the same transaction's snapshot), so a row found unsuitable
    /// before that costs no ledger check. `visit` must not write (a write changes the root the
    /// later checks compare with): callers collect the rows and write after the walk.
    ///
    /// - Returns: how many of the entries met name a row that does not exist: the keychain
    ///   deletes a row's entries with it, so such an entry is the trace of a row removed from the
    ///   database behind its back.
    @discardableResult
    func searchRows(
        itemClass: ItemClass, tokens: [Data], in connection: SQLiteConnection,
        _ visit: (StoredRow, _ isCurrent: () throws -> Bool) throws -> Bool
    ) throws -> Int {
        // The planner never asks for more; a count out of range is refused, never a trap.
        guard !tokens.isEmpty && tokens.count <= Self.maximumSearchTokens else {
            throw KeychainError.param("a search names between 1 and \(Self.maximumSearchTokens) indexed values")
        }
        let pending = try unindexedRows(itemClass: itemClass, after: 0, limit: -1, in: connection)
        var next = pending.startIndex
        // The root, read and verified on the first check (nil inside: it did not verify).
        var root: LedgerRoot??
        func verifiedRoot() throws -> LedgerRoot? {
            if let root { return root }
            let read = try ledgerRoot(in: connection)
            root = .some(read)
            return read
        }
        func visitPending(_ row: StoredRow) throws -> Bool {
            try visit(row) { try isCurrent(row, in: connection) }
        }
        let statement = try connection.statement(Self.searchStatements[tokens.count - 1])
        var values: [SQLiteValue] = [.blob(tokens[0]), .text(itemClass.rawValue)]
        values += tokens.dropFirst().map { .blob($0) }
        try statement.bind(values)
        defer { statement.reset() }
        let ledgerColumn = Int32(Self.columns.split(separator: ",").count)
        var dangling = 0
        while try statement.step() {
            guard !statement.isNull(0) else {
                dangling += 1
                continue
            }
            let row = try Self.readRow(statement, from: 0)
            while next < pending.endIndex && pending[next].rowID < row.rowID {
                if try !visitPending(pending[next]) { return dangling }
                next += 1
            }
            // The bodies are lent by the statement, which does not step again during the visit.
            let more = try visit(row) {
                let root = try verifiedRoot()
                return try statement.withBlob(ledgerColumn) { node in
                    try statement.withBlob(ledgerColumn + 1) { leaf in
                        try ledger.vouches(for: row, verifiedRoot: root, node: node, leaf: leaf)
                    }
                }
            }
            if !more { return dangling }
        }
        while next < pending.endIndex {
            if try !visitPending(pending[next]) { return dangling }
            next += 1
        }
        return dangling
    }

    /// Removes the entries whose rows are gone (a row removed behind the keychain's back left
    /// them); returns how many.
    @discardableResult
    func pruneDanglingSearchEntries(in connection: SQLiteConnection) throws -> Int {
        try connection.statement("DELETE FROM search_index WHERE item NOT IN (SELECT rowid FROM items)").run()
        return connection.changes
    }

    /// Up to `limit` (all when negative) rows of `itemClass` not yet indexed, after row id
    /// `after`, in row order.
    func unindexedRows(itemClass: ItemClass, after: Int64, limit: Int, in connection: SQLiteConnection) throws -> [StoredRow] {
        try connection.statement(Self.selectUnindexed)
            .bind([.text(itemClass.rawValue), .integer(after), .integer(Int64(limit))])
            .rows { try Self.readRow($0, from: 0) }
    }

    /// Records the tokens of a row that had none, and its entries. A row that has tokens by now
    /// (another process indexed it) is left as it is.
    func setSearchTokens(_ tokens: Data, of item: Int64, in connection: SQLiteConnection) throws {
        try connection.statement(Self.setTokens).bind([.blob(tokens), .integer(item)]).run()
        guard connection.changes > 0 else { return }
        try addSearchEntries(tokens, item: item, in: connection)
    }

    /// Whether any row is waiting to be indexed.
    func hasUnindexedRows(in connection: SQLiteConnection) throws -> Bool {
        try connection.statement("SELECT EXISTS (SELECT 1 FROM items WHERE idx IS NULL)").rows { $0.int64(0) != 0 }.first ?? false
    }
}
