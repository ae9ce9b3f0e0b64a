import Foundation

/// The rollback ledger's rows (`RollbackLedger` describes the tree and its rules).
extension KeychainStore {
    private static let selectPath = PreparedSQL(
        """
        SELECT (SELECT body FROM ledger WHERE id = 0), (SELECT body FROM ledger WHERE id = ?),
            (SELECT body FROM ledger WHERE id = ?)
        """)
    private static let upsertBody = PreparedSQL(
        "INSERT INTO ledger(id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body")
    private static let deleteBody = PreparedSQL("DELETE FROM ledger WHERE id = ?")

    /// SQL for the root, node and leaf bodies above the `items` row of the statement it is part
    /// of (three columns). A byte of the UUID becomes a number through its position in a blob
    /// of the 256 byte values (SQLite has no other way from a blob byte to an integer).
    static let ledgerPathColumns: String = {
        let byteValues = "x'" + (0...255).map { String(format: "%02x", $0) }.joined() + "'"
        let first = "(instr(\(byteValues), substr(items.uuid, 1, 1)) - 1)"
        let second = "(instr(\(byteValues), substr(items.uuid, 2, 1)) - 1)"
        return """
            (SELECT body FROM ledger WHERE id = 0),
            (SELECT body FROM ledger WHERE id = \(RollbackLedger.firstNodeID) + \(first)),
            (SELECT body FROM ledger WHERE id = \(RollbackLedger.firstLeafID) + \(first) * 256 + \(second))
            """
    }()

    /// Runs `body` on the root, node and leaf bodies above `uuid` (lent, nil where no row
    /// exists), read inside the caller's transaction.
    private func withLedgerPath<T>(
        for uuid: Data, in connection: SQLiteConnection,
        _ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) throws -> T
    ) throws -> T {
        let path = RollbackLedger.Path(uuid: uuid)
        let statement = try connection.statement(Self.selectPath).bind([
            .integer(RollbackLedger.rowID(path.node)), .integer(RollbackLedger.rowID(path.leaf)),
        ])
        defer { statement.reset() }
        guard try statement.step() else { return try body(nil, nil, nil) }
        return try statement.withBlob(0) { root in
            try statement.withBlob(1) { node in try statement.withBlob(2) { leaf in try body(root, node, leaf) } }
        }
    }

    /// The root, node and leaf bodies above `uuid`, copied (for a write that changes them).
    func ledgerEvidence(for uuid: Data, in connection: SQLiteConnection) throws -> RollbackLedger.Evidence {
        try withLedgerPath(for: uuid, in: connection) { root, node, leaf in
            RollbackLedger.Evidence(root: root.map { Data($0) }, node: node.map { Data($0) }, leaf: leaf.map { Data($0) })
        }
    }

    /// Whether the ledger names `row`'s generation for its UUID (read in the caller's
    /// transaction, so row and ledger are one snapshot).
    func isCurrent(_ row: StoredRow, in connection: SQLiteConnection) throws -> Bool {
        try withLedgerPath(for: row.uuid, in: connection) { root, node, leaf in
            try ledger.vouches(for: row.uuid, generation: row.generation, root: root, node: node, leaf: leaf)
        }
    }

    /// Records, in the caller's write transaction, that `uuid`'s row now has `generation` (nil:
    /// the row was deleted).
    ///
    /// The path is checked first: a node or leaf that no longer matches the level above is
    /// rebuilt from the rows with every entry unverifiable, so this write neither fails nor makes
    /// a damaged part of the ledger vouch for anything.
    func recordGeneration(_ generation: Int64?, of uuid: Data, in connection: SQLiteConnection) throws {
        guard uuid.count == 16 else { throw KeychainError(.decode, "a stored row has a malformed UUID") }
        let path = RollbackLedger.Path(uuid: uuid)
        let nodeIndex = uuid[uuid.startIndex]
        let leafIndex = uuid[uuid.startIndex + 1]
        var evidence = try ledgerEvidence(for: uuid, in: connection)
        if !RollbackLedger.slot(evidence.root, nodeIndex, holds: try ledger.digest(prefix: path.node, body: evidence.node)) {
            evidence.node = try rebuildNode(path.node, in: connection)
            evidence.leaf = try ledgerEvidence(for: uuid, in: connection).leaf
        } else if !RollbackLedger.slot(evidence.node, leafIndex, holds: try ledger.digest(prefix: path.leaf, body: evidence.leaf)) {
            evidence.leaf = try unverifiableLeaf(path.leaf, in: connection)
        }
        let leaf = RollbackLedger.setting(evidence.leaf, uuid, to: generation)
        try write(leaf, at: path.leaf, in: connection)
        let node = RollbackLedger.setting(evidence.node, leafIndex, to: try ledger.digest(prefix: path.leaf, body: leaf))
        try write(node, at: path.node, in: connection)
        let root = RollbackLedger.setting(evidence.root, nodeIndex, to: try ledger.digest(prefix: path.node, body: node))
        try write(root, at: Data(), in: connection)
    }

    /// Builds the whole ledger from the rows as they are (an upgraded keychain, in the caller's
    /// transaction). The rows are read in UUID order (the UUID index), so each leaf, then each
    /// node, is complete when the prefix moves on: memory holds one leaf and one node, whatever
    /// the number of items.
    func buildLedger(in connection: SQLiteConnection) throws {
        try connection.statement("DELETE FROM ledger").run()
        var leaf: (prefix: Data, entries: [(uuid: Data, generation: Int64)])?
        var node: (prefix: Data, body: Data?)?
        var root: Data?
        func finishLeaf() throws {
            guard let (prefix, entries) = leaf else { return }
            let body = RollbackLedger.encode(entries)
            try write(body, at: prefix, in: connection)
            node!.body = RollbackLedger.setting(
                node!.body, prefix[prefix.startIndex + 1], to: try ledger.digest(prefix: prefix, body: body))
            leaf = nil
        }
        func finishNode() throws {
            try finishLeaf()
            guard let (prefix, body) = node else { return }
            try write(body, at: prefix, in: connection)
            root = RollbackLedger.setting(root, prefix[prefix.startIndex], to: try ledger.digest(prefix: prefix, body: body))
            node = nil
        }
        let rows = try connection.statement("SELECT uuid, gen FROM items ORDER BY uuid")
        defer { rows.reset() }
        while try rows.step() {
            guard let uuid = rows.blob(0), uuid.count == 16 else { continue }
            if node?.prefix != uuid.prefix(1) {
                try finishNode()
                node = (Data(uuid.prefix(1)), nil)
            }
            if leaf?.prefix != uuid.prefix(2) {
                try finishLeaf()
                leaf = (Data(uuid.prefix(2)), [])
            }
            leaf!.entries.append((uuid, rows.int64(1)))
        }
        try finishNode()
        try write(root, at: Data(), in: connection)
    }

    /// Rebuilds the node `prefix` (one byte) and every leaf below it from the rows, every entry
    /// unverifiable; returns the node's body.
    private func rebuildNode(_ prefix: Data, in connection: SQLiteConnection) throws -> Data? {
        let firstLeaf = RollbackLedger.rowID(prefix + Data([0]))
        try connection.statement("DELETE FROM ledger WHERE id BETWEEN ? AND ?")
            .bind([.integer(firstLeaf), .integer(firstLeaf + 255)]).run()
        var leaves: [Data: [(uuid: Data, generation: Int64)]] = [:]
        for uuid in try uuids(withPrefix: prefix, in: connection) {
            leaves[uuid.prefix(2), default: []].append((uuid, RollbackLedger.unverifiable))
        }
        var node: Data?
        for (leafPrefix, members) in leaves {
            let body = RollbackLedger.encode(members)
            try write(body, at: leafPrefix, in: connection)
            node = RollbackLedger.setting(
                node, leafPrefix[leafPrefix.startIndex + 1], to: try ledger.digest(prefix: leafPrefix, body: body))
        }
        return node
    }

    /// The leaf `prefix` (two bytes) rebuilt from the rows, every entry unverifiable.
    private func unverifiableLeaf(_ prefix: Data, in connection: SQLiteConnection) throws -> Data? {
        let members = try uuids(withPrefix: prefix, in: connection).map { (uuid: $0, generation: RollbackLedger.unverifiable) }
        return members.isEmpty ? nil : RollbackLedger.encode(members)
    }

    /// The UUIDs of the rows whose UUID starts with `prefix` (a range on the UUID index).
    private func uuids(withPrefix prefix: Data, in connection: SQLiteConnection) throws -> [Data] {
        let (lower, upper) = Self.range(of: prefix)
        return try connection.statement("SELECT uuid FROM items WHERE uuid >= ?" + (upper == nil ? "" : " AND uuid < ?"))
            .bind([.blob(lower)] + (upper.map { [.blob($0)] } ?? []))
            .rows { $0.blob(0) ?? Data() }
            .filter { $0.count == 16 && $0.starts(with: prefix) }
    }

    /// The blobs that start with `prefix` lie in `lower ..< upper` (no upper bound when `prefix`
    /// is all 0xff).
    private static func range(of prefix: Data) -> (lower: Data, upper: Data?) {
        var upper = [UInt8](prefix)
        while let last = upper.last {
            if last < 0xff {
                upper[upper.count - 1] = last + 1
                return (prefix, Data(upper))
            }
            upper.removeLast()
        }
        return (prefix, nil)
    }

    private func write(_ body: Data?, at prefix: Data, in connection: SQLiteConnection) throws {
        if let body {
            try connection.statement(Self.upsertBody).bind([.integer(RollbackLedger.rowID(prefix)), .blob(body)]).run()
        } else {
            try connection.statement(Self.deleteBody).bind([.integer(RollbackLedger.rowID(prefix))]).run()
        }
    }
}
