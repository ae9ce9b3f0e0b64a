import Foundation
import KeychainSQLite

/// The rollback ledger's rows (`RollbackLedger` describes the tree and its rules).
extension KeychainStore {
    private static let selectPath = PreparedSQL(
        """
        SELECT (SELECT body FROM ledger WHERE id = 0), (SELECT body FROM ledger WHERE id = ?),
            (SELECT body FROM ledger WHERE id = ?)
        """)
    private static let selectRoot = PreparedSQL("SELECT body FROM ledger WHERE id = 0")
    private static let upsertBody = PreparedSQL(
        "INSERT INTO ledger(id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body")
    private static let deleteBody = PreparedSQL("DELETE FROM ledger WHERE id = ?")

    // MARK: - Reading

    /// Runs `body` on the root, node and leaf bodies above `token` (lent, nil where no row
    /// exists), read inside the caller's transaction.
    private func withLedgerPath<T>(
        for token: Data, in connection: SQLiteConnection,
        _ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) throws -> T
    ) throws -> T {
        guard let ids = RollbackLedger.rowIDs(above: token) else { return try body(nil, nil, nil) }
        let statement = try connection.statement(Self.selectPath).bind([.integer(ids.node), .integer(ids.leaf)])
        defer { statement.reset() }
        guard try statement.step() else { return try body(nil, nil, nil) }
        return try statement.withBlob(0) { root in
            try statement.withBlob(1) { node in try statement.withBlob(2) { leaf in try body(root, node, leaf) } }
        }
    }

    /// What the ledger says about `token`, in the caller's transaction.
    func standing(of token: Data, in connection: SQLiteConnection) throws -> RollbackLedger.Standing {
        try withLedgerPath(for: token, in: connection) { root, node, leaf in
            try ledger.standing(of: token, root: root, node: node, leaf: leaf)
        }
    }

    /// Whether the ledger names `row`'s UUID, class and generation for its token (read in the
    /// caller's transaction, so row and ledger are one snapshot).
    func isCurrent(_ row: StoredRow, in connection: SQLiteConnection) throws -> Bool {
        try withLedgerPath(for: row.primaryKeyToken, in: connection) { root, node, leaf in
            try ledger.vouches(for: row, root: root, node: node, leaf: leaf)
        }
    }

    /// The ledger's root; nil when it was altered (its MAC fails).
    func ledgerRoot(in connection: SQLiteConnection) throws -> LedgerRoot? {
        let statement = try connection.statement(Self.selectRoot)
        defer { statement.reset() }
        guard try statement.step() else { return LedgerRoot() }
        return try statement.withBlob(0) { try ledger.root($0) }
    }

    // MARK: - Writing

    /// Records, in the caller's write transaction, that the item with token `removed` is gone
    /// and that `added` now stands (either may be nil; both name the same item when an update
    /// keeps or changes its primary key). Counts follow the entries; writing a synchronizable
    /// item sets the root's flag.
    ///
    /// The path is checked first: a root, node or leaf that no longer authenticates is rebuilt
    /// from the rows with every entry unverifiable (and the counts taken from the rows), so this
    /// write neither fails nor makes a damaged part of the ledger vouch for anything.
    func recordChange(
        removing removed: Data?, adding added: RollbackLedger.Entry?, synchronizable: Bool = false,
        in connection: SQLiteConnection
    ) throws {
        var (root, recount) = try writableRoot(in: connection)
        // Counts follow the entries a leaf loses and gains.
        func count(_ entry: RollbackLedger.Entry?, _ delta: Int64) {
            if let entry, let itemClass = ItemClass(ledgerCode: entry.itemClass) { root.adjustCount(of: itemClass, by: delta) }
        }
        if let removed {
            count(try updateLeaf(above: removed, root: &root.slots, recount: &recount, in: connection) {
                RollbackLedger.setting($0, removing: removed, adding: nil)
            }, -1)
        }
        if let added {
            count(try updateLeaf(above: added.token, root: &root.slots, recount: &recount, in: connection) {
                RollbackLedger.setting($0, removing: added.token, adding: added)
            }, -1)
            count(added, 1)
        }
        if synchronizable { root.synchronizableItems = true }
        if recount { root.counts = try rowCounts(in: connection) }
        try writeRoot(root, in: connection)
    }

    /// `recordChange(removing: nil, adding:)` for many rows just inserted, in the caller's write
    /// transaction, with the same outcome as one call per row: each leaf and node the entries
    /// fall under is read, checked (and if need be rebuilt, as `recordChange` does) and written
    /// once, and the root once, instead of once per row. A bulk add of a thousand items otherwise
    /// rewrites, hashes and MACs the root (3.4 KiB when full) and a node a thousand times.
    func recordAdditions(_ added: [RollbackLedger.Entry], synchronizable: Bool, in connection: SQLiteConnection) throws {
        guard !added.isEmpty else { return }
        guard added.allSatisfy({ $0.token.count >= RollbackLedger.tokenLength }) else {
            throw KeychainError(.decode, "a stored row has a malformed primary-key token")
        }
        var (root, recount) = try writableRoot(in: connection)
        func count(_ entry: RollbackLedger.Entry, _ delta: Int64) {
            if let itemClass = ItemClass(ledgerCode: entry.itemClass) { root.adjustCount(of: itemClass, by: delta) }
        }
        // By leaf (the token's first two bytes): each node's leaves are then consecutive. The
        // entries are ordered through their leaf numbers (sorting the entries themselves moves
        // their buffers about).
        let order = added.indices.map { index -> (leaf: Int, index: Int) in
            let token = added[index].token
            return (Int(token[token.startIndex]) << 8 | Int(token[token.startIndex + 1]), index)
        }.sorted { $0.leaf < $1.leaf }
        func leafKey(_ position: Int) -> Int { order[position].leaf }
        var nodeDigests: [(index: UInt8, digest: Data)] = []
        var start = 0
        while start < order.count {
            let nodeIndex = UInt8(leafKey(start) >> 8)
            var end = start
            while end < order.count, leafKey(end) >> 8 == Int(nodeIndex) { end += 1 }
            let nodePrefix = Data([nodeIndex])
            let nodeID = RollbackLedger.rowID(nodePrefix)
            var node = try body(id: nodeID, in: connection)
            if !RollbackLedger.slot(root.slots, nodeIndex, holds: try ledger.digest(prefix: nodePrefix, body: node)) {
                node = try rebuildNode(nodePrefix, in: connection)
                recount = true
            }
            var leafDigests: [(index: UInt8, digest: Data)] = []
            var leafStart = start
            while leafStart < end {
                let leafIndex = UInt8(leafKey(leafStart) & 0xff)
                var leafEnd = leafStart
                while leafEnd < end, leafKey(leafEnd) & 0xff == Int(leafIndex) { leafEnd += 1 }
                let leafPrefix = Data([nodeIndex, leafIndex])
                let leafID = RollbackLedger.rowID(leafPrefix)
                var leaf = try body(id: leafID, in: connection)
                if !RollbackLedger.slot(node, leafIndex, holds: try ledger.digest(prefix: leafPrefix, body: leaf)) {
                    leaf = try unverifiableLeaf(leafPrefix, in: connection)
                    recount = true
                }
                var entries = RollbackLedger.entries(of: leaf)
                for position in leafStart..<leafEnd {
                    let entry = added[order[position].index]
                    let token = entry.token.prefix(RollbackLedger.tokenLength)
                    if let index = entries.firstIndex(where: { $0.token == token }) {
                        count(entries.remove(at: index), -1)
                    }
                    entries.append(entry)
                    count(entry, 1)
                }
                let newLeaf = entries.isEmpty ? nil : RollbackLedger.encode(entries)
                try write(newLeaf, id: leafID, in: connection)
                leafDigests.append((leafIndex, try ledger.digest(prefix: leafPrefix, body: newLeaf)))
                leafStart = leafEnd
            }
            node = RollbackLedger.setting(node, leafDigests)
            try write(node, id: nodeID, in: connection)
            nodeDigests.append((nodeIndex, try ledger.digest(prefix: nodePrefix, body: node)))
            start = end
        }
        root.slots = RollbackLedger.setting(root.slots, nodeDigests)
        if synchronizable { root.synchronizableItems = true }
        if recount { root.counts = try rowCounts(in: connection) }
        try writeRoot(root, in: connection)
    }

    /// The ledger entry of a row being written.
    static func entry(for row: StoredRow) -> RollbackLedger.Entry {
        RollbackLedger.Entry(
            token: Data(row.primaryKeyToken.prefix(RollbackLedger.tokenLength)), uuid: row.uuid,
            itemClass: row.itemClass.ledgerCode, generation: row.generation)
    }

    /// The root a write starts from: the stored one, or, when it no longer authenticates, a
    /// ledger rebuilt from the rows with every entry unverifiable. `recount` is true when the
    /// counts must be taken from the rows once the write is done.
    private func writableRoot(in connection: SQLiteConnection) throws -> (LedgerRoot, recount: Bool) {
        if let root = try ledgerRoot(in: connection) { return (root, false) }
        try buildLedger(in: connection) { _, _ in false }
        return (try ledgerRoot(in: connection) ?? LedgerRoot(), true)
    }

    /// Applies `change` to the leaf above `token`, after checking (and if need be rebuilding)
    /// the leaf and its node against the root's `slots`, and updates the node and the root's
    /// slot. Returns the entry the leaf listed for `token` before the change.
    private func updateLeaf(
        above token: Data, root slots: inout Data?, recount: inout Bool, in connection: SQLiteConnection,
        _ change: (Data?) -> Data?
    ) throws -> RollbackLedger.Entry? {
        guard let path = RollbackLedger.Path(token: token) else {
            throw KeychainError(.decode, "a stored row has a malformed primary-key token")
        }
        let nodeIndex = token[token.startIndex]
        let leafIndex = token[token.startIndex + 1]
        let ids = path.rowIDs
        var node = try body(id: ids.node, in: connection)
        var leaf = try body(id: ids.leaf, in: connection)
        if !RollbackLedger.slot(slots, nodeIndex, holds: try ledger.digest(prefix: path.node, body: node)) {
            node = try rebuildNode(path.node, in: connection)
            leaf = try body(id: ids.leaf, in: connection)
            recount = true
        } else if !RollbackLedger.slot(node, leafIndex, holds: try ledger.digest(prefix: path.leaf, body: leaf)) {
            leaf = try unverifiableLeaf(path.leaf, in: connection)
            recount = true
        }
        let previous = leaf.withUnsafeBytesOrNil { RollbackLedger.entry(for: token, in: $0) }
        let newLeaf = change(leaf)
        try write(newLeaf, id: ids.leaf, in: connection)
        let newNode = RollbackLedger.setting(node, leafIndex, to: try ledger.digest(prefix: path.leaf, body: newLeaf))
        try write(newNode, id: ids.node, in: connection)
        slots = RollbackLedger.setting(slots, nodeIndex, to: try ledger.digest(prefix: path.node, body: newNode))
        return previous
    }

    /// Stores `root` (no row for an empty ledger's root), carrying the TPM rollback counter's
    /// value for this transaction when the keychain is bound to one.
    func writeRoot(_ root: LedgerRoot, in connection: SQLiteConnection) throws {
        var root = root
        if let counter = rollbackCounter.withLock({ $0 }) { root.counter = try counter.value(for: connection) }
        try write(try ledger.encode(root), id: 0, in: connection)
    }

    /// The number of rows of each stored class, as the root counts them.
    private func rowCounts(in connection: SQLiteConnection) throws -> [Int64] {
        var counts = [Int64](repeating: 0, count: ItemClass.stored.count)
        for (name, count) in try connection.statement("SELECT class, count(*) FROM items GROUP BY class")
            .rows({ ($0.text(0) ?? "", $0.int64(1)) })
        {
            if let itemClass = ItemClass(rawValue: name), let index = ItemClass.stored.firstIndex(of: itemClass) {
                counts[index] = count
            }
        }
        return counts
    }

    // MARK: - The access-group registry

    /// The digest of the access-group registry as stored: HMAC-SHA256 under the ledger key over
    /// every `(token, sealed name)` in token order; all zeros when it is empty.
    func registryDigest(of entries: [(token: Data, sealedName: Data)]) throws -> Data {
        guard !entries.isEmpty else { return Data(count: RollbackLedger.digestLength) }
        var writer = ByteWriter()
        writer.raw(Data("access group registry v1\u{0}".utf8))
        for entry in entries.sorted(by: { $0.token.lexicographicallyPrecedes($1.token) }) {
            writer.lengthPrefixed(entry.token)
            writer.lengthPrefixed(entry.sealedName)
        }
        return try ledger.key.authenticationCode(for: writer.data).prefix(RollbackLedger.digestLength)
    }

    /// Records the registry's current digest in the root (after a group was registered).
    func recordRegistry(in connection: SQLiteConnection) throws {
        var (root, recount) = try writableRoot(in: connection)
        root.registry = try registryDigest(of: try storedAccessGroups(in: connection))
        if recount { root.counts = try rowCounts(in: connection) }
        try writeRoot(root, in: connection)
    }

    // MARK: - Building and rebuilding

    /// Builds the whole ledger from the rows as they are (an upgraded keychain, or a root that no
    /// longer authenticates), in the caller's transaction; `trusted` says which rows it may vouch
    /// for (the others get unverifiable entries). The rows are read in token order (the token
    /// index), so each leaf, then each node, is complete when the prefix moves on: memory holds
    /// one leaf and one node, whatever the number of items. The root's synchronizable flag is
    /// set when any row exists (it cannot be known: lookups then try both tokens), the
    /// registry digest is taken from the table as found, and the program registry keeps the
    /// standing the old root gave it (`carriedProgramDigest`): a rebuild never vouches for
    /// registrations it cannot check.
    func buildLedger(in connection: SQLiteConnection, trusted: (_ uuid: Data, _ generation: Int64) throws -> Bool) throws {
        try connection.execute("CREATE TABLE ledger_building (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        var root = LedgerRoot()
        var leaf: (prefix: Data, entries: [RollbackLedger.Entry])?
        var node: (prefix: Data, body: Data?)?
        func put(_ body: Data?, at prefix: Data) throws {
            guard let body else { return }
            try connection.statement("INSERT INTO ledger_building(id, body) VALUES (?, ?)")
                .bind([.integer(RollbackLedger.rowID(prefix)), .blob(body)]).run()
        }
        func finishLeaf() throws {
            guard let (prefix, entries) = leaf else { return }
            let body = RollbackLedger.encode(entries)
            try put(body, at: prefix)
            node!.body = RollbackLedger.setting(
                node!.body, prefix[prefix.startIndex + 1], to: try ledger.digest(prefix: prefix, body: body))
            leaf = nil
        }
        func finishNode() throws {
            try finishLeaf()
            guard let (prefix, body) = node else { return }
            try put(body, at: prefix)
            root.slots = RollbackLedger.setting(root.slots, prefix[prefix.startIndex], to: try ledger.digest(prefix: prefix, body: body))
            node = nil
        }
        let rows = try connection.statement("SELECT pk, uuid, class, gen FROM items ORDER BY pk")
        defer { rows.reset() }
        while try rows.step() {
            guard let token = rows.blob(0), token.count >= RollbackLedger.tokenLength, let uuid = rows.blob(1), uuid.count == 16,
                let itemClass = rows.text(2).flatMap(ItemClass.init), itemClass.isStored
            else { continue }
            let generation = rows.int64(3)
            if node?.prefix != token.prefix(1) {
                try finishNode()
                node = (Data(token.prefix(1)), nil)
            }
            if leaf?.prefix != token.prefix(2) {
                try finishLeaf()
                leaf = (Data(token.prefix(2)), [])
            }
            leaf!.entries.append(
                RollbackLedger.Entry(
                    token: Data(token.prefix(RollbackLedger.tokenLength)), uuid: uuid, itemClass: itemClass.ledgerCode,
                    generation: try trusted(uuid, generation) ? generation : RollbackLedger.unverifiable))
            root.adjustCount(of: itemClass, by: 1)
            root.synchronizableItems = true
        }
        try finishNode()
        root.registry = try registryDigest(of: try storedAccessGroups(in: connection))
        root.programs = try carriedProgramDigest(in: connection)
        try put(try ledger.encode(root), at: Data())
        try connection.execute("DROP TABLE ledger; ALTER TABLE ledger_building RENAME TO ledger")
    }

    /// Rebuilds the node `prefix` (one byte) and every leaf below it from the rows, every entry
    /// unverifiable; returns the node's body.
    private func rebuildNode(_ prefix: Data, in connection: SQLiteConnection) throws -> Data? {
        let firstLeaf = RollbackLedger.rowID(prefix + Data([0]))
        try connection.statement("DELETE FROM ledger WHERE id BETWEEN ? AND ?")
            .bind([.integer(firstLeaf), .integer(firstLeaf + 255)]).run()
        var leaves: [Data: [RollbackLedger.Entry]] = [:]
        for entry in try unverifiableEntries(withPrefix: prefix, in: connection) {
            leaves[entry.token.prefix(2), default: []].append(entry)
        }
        var node: Data?
        for (leafPrefix, members) in leaves {
            let body = RollbackLedger.encode(members)
            try write(body, id: RollbackLedger.rowID(leafPrefix), in: connection)
            node = RollbackLedger.setting(
                node, leafPrefix[leafPrefix.startIndex + 1], to: try ledger.digest(prefix: leafPrefix, body: body))
        }
        return node
    }

    /// The leaf `prefix` (two bytes) rebuilt from the rows, every entry unverifiable.
    private func unverifiableLeaf(_ prefix: Data, in connection: SQLiteConnection) throws -> Data? {
        let members = try unverifiableEntries(withPrefix: prefix, in: connection)
        return members.isEmpty ? nil : RollbackLedger.encode(members)
    }

    /// Unverifiable entries for the rows whose token starts with `prefix` (a range on the token index).
    private func unverifiableEntries(withPrefix prefix: Data, in connection: SQLiteConnection) throws -> [RollbackLedger.Entry] {
        let (lower, upper) = Self.range(of: prefix)
        return try connection.statement("SELECT pk, uuid, class FROM items WHERE pk >= ?" + (upper == nil ? "" : " AND pk < ?"))
            .bind([.blob(lower)] + (upper.map { [.blob($0)] } ?? []))
            .rows { row -> RollbackLedger.Entry? in
                guard let token = row.blob(0), token.count >= RollbackLedger.tokenLength, token.starts(with: prefix),
                    let uuid = row.blob(1), let itemClass = row.text(2).flatMap(ItemClass.init)
                else { return nil }
                return RollbackLedger.Entry(
                    token: Data(token.prefix(RollbackLedger.tokenLength)), uuid: uuid, itemClass: itemClass.ledgerCode,
                    generation: RollbackLedger.unverifiable)
            }
            .compactMap { $0 }
    }

    /// The blobs that start with `prefix` lie in `lower ..< upper` (no upper bound when `prefix`
    /// is all 0xff).
    static func range(of prefix: Data) -> (lower: Data, upper: Data?) {
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

    /// Removes every entry of `itemClass` whose row is gone (rows removed from the database
    /// behind the keychain's back), so a class whose items were all deleted is whole again.
    /// Returns how many entries went.
    @discardableResult
    func pruneEntriesWithoutRows(of itemClass: ItemClass, in connection: SQLiteConnection) throws -> Int {
        let leaves = try connection.statement("SELECT body FROM ledger WHERE id >= ?")
            .bind([.integer(RollbackLedger.firstLeafID)]).rows { $0.blob(0) }
        var dangling: [Data] = []
        for leaf in leaves {
            for entry in RollbackLedger.entries(of: leaf) where entry.itemClass == itemClass.ledgerCode {
                let (lower, upper) = Self.range(of: entry.token)
                let exists = try connection.statement(
                    "SELECT EXISTS (SELECT 1 FROM items WHERE pk >= ?" + (upper == nil ? ")" : " AND pk < ?)")
                ).bind([.blob(lower)] + (upper.map { [.blob($0)] } ?? [])).rows { $0.int64(0) != 0 }.first ?? false
                if !exists { dangling.append(entry.token) }
            }
        }
        for token in dangling { try recordChange(removing: token, adding: nil, in: connection) }
        return dangling.count
    }

    private func body(id: Int64, in connection: SQLiteConnection) throws -> Data? {
        try connection.statement("SELECT body FROM ledger WHERE id = ?").bind([.integer(id)]).rows { $0.blob(0) }.first ?? nil
    }

    private func write(_ body: Data?, id: Int64, in connection: SQLiteConnection) throws {
        if let body {
            try connection.statement(Self.upsertBody).bind([.integer(id), .blob(body)]).run()
        } else {
            try connection.statement(Self.deleteBody).bind([.integer(id)]).run()
        }
    }
}
