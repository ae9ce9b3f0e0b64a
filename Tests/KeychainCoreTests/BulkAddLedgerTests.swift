import Foundation
import Testing

@testable import KeychainCore
import KeychainSQLite

/// A bulk add (`add(contentsOf:)`, `addReturningVersions`) records its rows in the rollback
/// ledger at once: each leaf and node it touches, and the root, written once for the batch.
@Suite("Rollback ledger bulk add")
struct BulkAddLedgerTests {
    /// Generic passwords of service `service`, every third one synchronizable.
    static func requests(_ service: String, count: Int) -> [ItemRequest] {
        (0..<count).map { index in
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes = ["svce": .string(service), "acct": .string("\(index)")]
            request.synchronizable = .only(index % 3 == 0)
            request.secret = Data("\(service) secret \(index)".utf8)
            return request
        }
    }

    /// Every row of the ledger table, by id.
    static func ledgerRows(_ keychain: Keychain) throws -> [Int64: Data] {
        let connection = try SQLiteConnection(path: keychain.path)
        var rows: [Int64: Data] = [:]
        for (id, body) in try connection.statement("SELECT id, body FROM ledger").rows({ ($0.int64(0), $0.blob(1) ?? Data()) }) {
            rows[id] = body
        }
        return rows
    }

    /// The secret of every item of `service`, by account.
    static func secrets(_ service: String, in keychain: Keychain) throws -> [String: Data] {
        var query = ItemRequest(itemClass: .genericPassword)
        query.attributes = ["svce": .string(service)]
        query.synchronizable = .any
        query.matchLimit = .all
        query.returns = [.attributes, .data]
        var found: [String: Data] = [:]
        for result in try keychain.search(query, context: TemporaryKeychain.context) {
            if case .string(let account)? = result.attributes?["acct"] { found[account] = result.data }
        }
        return found
    }

    @Test("a bulk add leaves the ledger exactly as built from the rows, and every item readable")
    func bulkAddMatchesRebuiltLedger() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        // Items added one by one first, so the batch lands in leaves and nodes that exist.
        for request in Self.requests("single", count: 150) { _ = try keychain.add(request, context: TemporaryKeychain.context) }
        try keychain.add(contentsOf: Self.requests("bulk", count: 3000), context: TemporaryKeychain.context)
        let written = try Self.ledgerRows(keychain)

        // The ledger made from the rows as they are, every entry trusted, is the canonical one.
        let store = keychain.store
        try store.withConnection { connection in
            try connection.writeTransaction { try store.buildLedger(in: connection) { _, _ in true } }
        }
        let rebuilt = try Self.ledgerRows(keychain)
        #expect(written.count == rebuilt.count)
        #expect(written == rebuilt)
        #expect(try Self.secrets("bulk", in: keychain).count == 3000)
        #expect(try Self.secrets("single", in: keychain).count == 150)
    }

    @Test("a bulk add under a ledger node that no longer matches adds its items and leaves the items below that node unreadable")
    func bulkAddUnderDamagedNode() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        for request in Self.requests("single", count: 40) { _ = try keychain.add(request, context: TemporaryKeychain.context) }
        let connection = try SQLiteConnection(path: keychain.path)
        let tokens = try connection.statement("SELECT pk FROM items").rows { $0.blob(0) ?? Data() }
        let damaged = try #require(tokens.first).prefix(1)
        let below = tokens.filter { $0.prefix(1) == damaged }.count
        try connection.statement("DELETE FROM ledger WHERE id = ?").bind([.integer(RollbackLedger.rowID(Data(damaged)))]).run()

        // 2 000 items: about eight under each node, the damaged one included.
        let bulk = Self.requests("bulk", count: 2000)
        try keychain.add(contentsOf: bulk, context: TemporaryKeychain.context)
        let added = try connection.statement("SELECT count(*) FROM items WHERE substr(pk, 1, 1) = ?")
            .bind([.blob(Data(damaged))]).rows { $0.int64(0) }.first ?? 0
        #expect(added > Int64(below), "the batch added items under the damaged node")
        let found = try Self.secrets("bulk", in: keychain)
        #expect(found.count == 2000)
        #expect(found == Dictionary(uniqueKeysWithValues: bulk.map { ($0.attributes["acct"]?.stringValue ?? "", $0.secret ?? Data()) }))
        // The earlier items below the damaged node are not vouched for; the others are.
        #expect(try Self.secrets("single", in: keychain).count == 40 - below)
    }
}
