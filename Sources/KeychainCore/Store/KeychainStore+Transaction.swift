import Foundation
import KeychainSQLite

extension KeychainStore {
    /// One transaction on the store (or, for `KeychainStore.snapshot`, one connection whose every
    /// statement sees its own snapshot): through it the engine inserts and updates items (sealed
    /// by the store, `KeychainStore+Sealing.swift`), deletes, looks up and scans rows, and reads
    /// the ledger, which every write keeps, as it keeps the group registry, without naming the
    /// database connection or the sealer underneath.
    struct Transaction {
        let store: KeychainStore
        let connection: SQLiteConnection

        func accessGroups() throws -> [(token: Data, sealedName: Data)] { try store.accessGroups(in: connection) }
        func allRows() throws -> [StoredRow] { try store.allRows(in: connection) }
        func delete(rowID: Int64) throws { try store.delete(rowID: rowID, in: connection) }
        func deleteAllRows() throws { try store.deleteAllRows(in: connection) }
        func deletePasscodeClassRows() throws -> Int { try store.deletePasscodeClassRows(in: connection) }
        func establishValue(_ value: Data, forKey key: String) throws -> Data {
            try store.establishValue(value, forKey: key, in: connection)
        }
        func hasPasscodeClassRows() throws -> Bool { try store.hasPasscodeClassRows(in: connection) }
        func hasUnindexedRows() throws -> Bool { try store.hasUnindexedRows(in: connection) }
        func insert(_ row: StoredRow) throws -> Int64 { try store.insert(row, in: connection) }
        func insert(contentsOf rows: [StoredRow]) throws -> [Int64] { try store.insert(contentsOf: rows, in: connection) }
        func isCurrent(_ row: StoredRow) throws -> Bool { try store.isCurrent(row, in: connection) }
        func ledgerRoot() throws -> LedgerRoot? { try store.ledgerRoot(in: connection) }
        func lookup(primaryKeyToken token: Data, keysAreCurrent: (Data?) throws -> Void = { _ in }) throws -> TokenLookup {
            try store.lookup(primaryKeyToken: token, in: connection, keysAreCurrent: keysAreCurrent)
        }
        @discardableResult func pruneDanglingSearchEntries() throws -> Int { try store.pruneDanglingSearchEntries(in: connection) }
        func pruneEntriesWithoutRows(of itemClass: ItemClass) throws -> Int {
            try store.pruneEntriesWithoutRows(of: itemClass, in: connection)
        }
        func registerAccessGroup(token: Data, sealedName: Data) throws {
            try store.registerAccessGroup(token: token, sealedName: sealedName, in: connection)
        }
        func removeMissingItem(primaryKeyToken token: Data) throws { try store.removeMissingItem(primaryKeyToken: token, in: connection) }
        func replaceSealedKeys(of row: StoredRow) throws { try store.replaceSealedKeys(of: row, in: connection) }
        func row(uuid: Data) throws -> StoredRow? { try store.row(uuid: uuid, in: connection) }
        func row(rowID: Int64) throws -> StoredRow? { try store.row(rowID: rowID, in: connection) }
        func rowIDs(protectedBy keyClasses: [String]) throws -> [Int64] { try store.rowIDs(protectedBy: keyClasses, in: connection) }
        func scan(itemClass: ItemClass, _ visit: (StoredRow) throws -> Bool) throws {
            try store.scan(itemClass: itemClass, in: connection, visit)
        }
        func searchRows(
            itemClass: ItemClass, tokens: [Data], _ visit: (StoredRow, _ isCurrent: () throws -> Bool) throws -> Bool
        ) throws -> Int {
            try store.searchRows(itemClass: itemClass, tokens: tokens, in: connection, visit)
        }
        func setSearchTokens(_ tokens: Data, of item: Int64) throws { try store.setSearchTokens(tokens, of: item, in: connection) }
        func setValue(_ value: Data, forKey key: String) throws { try store.setValue(value, forKey: key, in: connection) }
        func unindexedRows(itemClass: ItemClass, after: Int64, limit: Int) throws -> [StoredRow] {
            try store.unindexedRows(itemClass: itemClass, after: after, limit: limit, in: connection)
        }
        func update(_ row: StoredRow, previous: StoredRow, sameKey: Bool = false) throws {
            try store.update(row, previous: previous, sameKey: sameKey, in: connection)
        }
        func value(forKey key: String) throws -> Data? { try store.value(forKey: key, in: connection) }

        /// Runs `body` in a read transaction on this connection (one snapshot for all its reads).
        func readTransaction<T>(_ body: (Transaction) throws -> T) throws -> T {
            try connection.readTransaction { try body(self) }
        }

        /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`) on this connection.
        func writeTransaction<T>(_ body: (Transaction) throws -> T) throws -> T {
            let counter = store.rollbackCounter.withLock { $0 }
            counter?.begin(connection)
            defer { counter?.end(connection) }
            return try connection.writeTransaction { try body(self) }
        }
    }

    /// Runs `body` with a connection of the pool, outside any transaction (each statement sees
    /// its own snapshot) until `body` opens one.
    func snapshot<T>(_ body: (Transaction) throws -> T) throws -> T {
        try withConnection { try body(Transaction(store: self, connection: $0)) }
    }

    /// Runs `body` in one read transaction: every read sees one snapshot of the database.
    func read<T>(_ body: (Transaction) throws -> T) throws -> T {
        try snapshot { try $0.readTransaction(body) }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): its writes commit together or not at all.
    func write<T>(_ body: (Transaction) throws -> T) throws -> T {
        try snapshot { try $0.writeTransaction(body) }
    }
}
