import Foundation
import Testing

@testable import KeychainCore
import KeychainCrypto
import KeychainSQLite

/// Rollback detection (docs/reliability.md §4): a row put back to an older version of itself is
/// authentic on its own, and the rollback ledger (`RollbackLedger`) is what gives it away.
@Suite("Rollback detection")
struct RollbackTests {
    /// The item the tests roll back (the second generic password).
    static let target = 1

    /// Saves the target's row as it is now, updates the item with `changes`, and puts the saved
    /// columns back (`columns`, or the whole row).
    static func rollBack(
        _ fixture: TamperFixture, columns: [String]? = nil, changes: ItemChanges = .newSecret("the newer secret")
    ) throws {
        let item = fixture.items[target]
        let names = columns ?? ["pk", "metadata", "secret"]
        let saved = try names.map { ($0, try fixture.value($0, row: item.rowID)) }
        let generation = try fixture.generation(row: item.rowID)
        try fixture.temporary.keychain.update(fixture.keyed(item, returns: []), changes: changes, context: fixture.context)
        for (column, value) in saved { try fixture.setValue(value, column, row: item.rowID) }
        if columns == nil { try fixture.setGeneration(generation, row: item.rowID) }
    }

    @Test("a row put back to its version before an update gives errSecDecode, never the old secret; the rest stays readable")
    func wholeRowRolledBack() throws {
        let fixture = try TamperFixture()
        try Self.rollBack(fixture)
        #expect(fixture.failure(of: fixture.items[Self.target], "rolled back row") == .decode)
        try fixture.expectOthersIntact(except: [Self.target], "rolled back row")
    }

    @Test("putting back only the older secret, or only the older attributes, is detected", arguments: ["secret", "metadata"])
    func partRolledBack(column: String) throws {
        let fixture = try TamperFixture()
        try Self.rollBack(fixture, columns: [column])
        #expect(fixture.failure(of: fixture.items[Self.target], "older \(column)") == .decode)
        try fixture.expectOthersIntact(except: [Self.target], "older \(column)")
    }

    @Test("a rollback over an attribute-only update (the secret unchanged) is detected")
    func rolledBackOverAttributeUpdate() throws {
        let fixture = try TamperFixture()
        var relabel = ItemChanges()
        relabel.attributes["labl"] = .string("relabelled")
        try Self.rollBack(fixture, changes: relabel)
        #expect(fixture.failure(of: fixture.items[Self.target], "rolled back over a relabel") == .decode)
    }

    @Test("a search through the index leaves out a rolled-back row or one under a damaged leaf, never its old secret, and finds the rest of its service")
    func searchByServiceChecksTheLedger() throws {
        let fixture = try TamperFixture()
        let keychain = fixture.temporary.keychain
        var sibling = ItemRequest(itemClass: .genericPassword)
        sibling.attributes = ["svce": .string("bravo"), "acct": .string("2b")]
        sibling.secret = Data("secret-of-the-other-bravo-item".utf8)
        _ = try keychain.add(sibling, context: fixture.context)
        var byService = ItemRequest(itemClass: .genericPassword)
        byService.attributes = ["svce": .string("bravo")]
        byService.matchLimit = .all
        byService.returns = [.data, .attributes]
        func secrets() throws -> [Data?] {
            let before = keychain.queryPlanStatistics.searchIndex
            let found = try keychain.search(byService, context: fixture.context).map(\.data)
            #expect(keychain.queryPlanStatistics.searchIndex == before + 1, "the search used the index")
            return found
        }
        #expect(try secrets() == [fixture.items[Self.target].secret, sibling.secret])

        try Self.rollBack(fixture)
        #expect(try secrets() == [sibling.secret], "rolled back row")

        // The same row current again, then its ledger leaf altered.
        let item = fixture.items[Self.target]
        _ = try keychain.delete(fixture.keyed(item, returns: []), context: fixture.context)
        var readd = ItemRequest(itemClass: .genericPassword)
        readd.attributes = item.key
        readd.secret = item.secret
        _ = try keychain.add(readd, context: fixture.context)
        #expect(try secrets().count == 2)
        let newest = try #require(try fixture.connection.statement("SELECT max(rowid) FROM items").rows { $0.int64(0) }.first)
        let leafID = RollbackLedger.rowID(Data(try fixture.value("pk", row: newest).prefix(2)))
        var leaf = try #require(
            try fixture.connection.statement("SELECT body FROM ledger WHERE id = ?").bind([.integer(leafID)])
                .rows { $0.blob(0) }.first ?? nil)
        leaf[leaf.startIndex + leaf.count - 1] ^= 0x01
        try fixture.connection.statement("UPDATE ledger SET body = ? WHERE id = ?").bind([.blob(leaf), .integer(leafID)]).run()
        #expect(try secrets() == [sibling.secret], "damaged leaf")
    }

    @Test("a ledger digest is the first 12 bytes of HMAC-SHA256 over the level's label, the prefix's length, the prefix and the body (known answers)")
    func digestKnownAnswers() throws {
        let ledger = RollbackLedger(key: try SymmetricKey(SecureBytes(copying: Data(0..<32))))
        let leaf = Data((0..<82).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
        let node = Data((0..<39).map { UInt8(truncatingIfNeeded: $0 * 11 + 5) })
        // Computed independently (Python's hmac module).
        #expect(try ledger.digest(prefix: Data([0xab, 0x01]), body: leaf).hex == "dd90e63ed80eff700c5e3b13")
        #expect(try ledger.digest(prefix: Data([0xab]), body: node).hex == "ac1a729eb5d9781ca6332b61")
        // A node's remembered digest is the same; no body has the zero digest.
        #expect(try ledger.digest(prefix: Data([0xab]), body: node).hex == "ac1a729eb5d9781ca6332b61")
        #expect(try ledger.digest(prefix: Data([0xab, 0x01]), body: nil as Data?) == Data(count: 12))
        #expect(try ledger.digest(prefix: Data([0xab]), body: Data()) == Data(count: 12))
    }

    @Test("a row whose generation column alone is changed does not open")
    func generationChanged() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        for generation: Int64 in [0, 2, -1, Int64.max] {
            try fixture.connection.statement("UPDATE items SET gen = ? WHERE rowid = ?")
                .bind([.integer(generation), .integer(item.rowID)]).run()
            #expect(fixture.failure(of: item, "generation \(generation)") == .decode)
        }
        try fixture.connection.statement("UPDATE items SET gen = 1 WHERE rowid = ?").bind([.integer(item.rowID)]).run()
        #expect(try fixture.secret(of: item) == item.secret)
    }

    @Test("a rolled-back item can be deleted by its primary key, and its key used again")
    func rolledBackItemDeletedAndReplaced() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        try Self.rollBack(fixture)
        #expect(try fixture.temporary.keychain.delete(fixture.keyed(item, returns: []), context: fixture.context) == 1)
        var request = fixture.keyed(item, returns: [])
        request.secret = Data("replacement".utf8)
        _ = try fixture.temporary.keychain.add(request, context: fixture.context)
        #expect(try fixture.secret(of: item) == Data("replacement".utf8))
        for (index, other) in fixture.items.enumerated() where index != Self.target {
            #expect(try fixture.secret(of: other) == other.secret)
        }
    }

    @Test("every write advances the generation, so each older version is refused")
    func everyOlderVersionRefused() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        var versions: [(metadata: Data, secret: Data, generation: Int64)] = []
        for round in 0..<4 {
            versions.append(
                (try fixture.value("metadata", row: item.rowID), try fixture.value("secret", row: item.rowID),
                 try fixture.generation(row: item.rowID)))
            try fixture.temporary.keychain.update(
                fixture.keyed(item, returns: []), changes: .newSecret("version \(round + 1)"), context: fixture.context)
        }
        let current = (try fixture.value("metadata", row: item.rowID), try fixture.value("secret", row: item.rowID),
                       try fixture.generation(row: item.rowID))
        for (index, version) in versions.enumerated() {
            try fixture.setValue(version.metadata, "metadata", row: item.rowID)
            try fixture.setValue(version.secret, "secret", row: item.rowID)
            try fixture.setGeneration(version.generation, row: item.rowID)
            #expect(fixture.failure(of: item, "version \(index)") == .decode)
        }
        try fixture.setValue(current.0, "metadata", row: item.rowID)
        try fixture.setValue(current.1, "secret", row: item.rowID)
        try fixture.setGeneration(current.2, row: item.rowID)
        #expect(try fixture.secret(of: item) == Data("version 4".utf8))
    }

    @Test("a damaged ledger leaf makes its items unreadable until deleted, and later writes there never bless them")
    func damagedLedgerLeaf() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        let token = try fixture.value("pk", row: item.rowID)
        let leafPrefix = token.prefix(2)
        var leaf = try #require(
            try fixture.connection.statement("SELECT body FROM ledger WHERE id = ?")
                .bind([.integer(RollbackLedger.rowID(Data(leafPrefix)))])
                .rows { $0.blob(0) }.first ?? nil)
        leaf[leaf.startIndex + 20] ^= 0x40
        try fixture.connection.statement("UPDATE ledger SET body = ? WHERE id = ?")
            .bind([.blob(leaf), .integer(RollbackLedger.rowID(Data(leafPrefix)))]).run()
        #expect(fixture.failure(of: item, "damaged leaf") == .decode)
        try fixture.expectOthersIntact(except: [Self.target], "damaged leaf")

        // A write elsewhere in the keychain, and one in the same leaf (the third item's row, moved
        // into the leaf by giving it a token with the prefix, then deleted), leave the damaged
        // item unreadable. The third item, whose row is gone, is then deleted by key.
        try fixture.temporary.keychain.update(
            fixture.keyed(fixture.items[0], returns: []), changes: .newSecret("alpha again"), context: fixture.context)
        try fixture.connection.statement("UPDATE items SET pk = ? WHERE rowid = ?")
            .bind([.blob(Data(leafPrefix) + Data(repeating: 0xee, count: 30)), .integer(fixture.items[2].rowID)]).run()
        let store = fixture.temporary.keychain.store
        try store.withConnection { connection in
            try connection.writeTransaction { try store.delete(rowID: fixture.items[2].rowID, in: connection) }
        }
        #expect(fixture.failure(of: fixture.items[2], "row removed") == .decode)
        #expect(try fixture.temporary.keychain.delete(fixture.keyed(fixture.items[2], returns: []), context: fixture.context) == 1)
        #expect(fixture.failure(of: item, "after writes") == .decode)
        #expect(try fixture.temporary.keychain.delete(fixture.keyed(item, returns: []), context: fixture.context) == 1)
        #expect(try fixture.secret(of: fixture.items[0]) == Data("alpha again".utf8))
        #expect(try fixture.secret(of: fixture.items[3]) == fixture.items[3].secret)
    }

    @Test("a ledger node or root that no longer matches makes the items below it unreadable, and writes go on", arguments: [0, 1])
    func damagedLedgerNode(prefixLength: Int) throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        let prefix = Data(try fixture.value("pk", row: item.rowID).prefix(prefixLength))
        try fixture.connection.statement("DELETE FROM ledger WHERE id = ?").bind([.integer(RollbackLedger.rowID(prefix))]).run()
        #expect(fixture.failure(of: item, "ledger level \(prefixLength) removed") == .decode)
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes = ["svce": .string("echo"), "acct": .string("5")]
        request.secret = Data("written after the damage".utf8)
        _ = try fixture.temporary.keychain.add(request, context: fixture.context)
        request.returns = [.data]
        #expect(try fixture.temporary.keychain.search(request, context: fixture.context).first?.data == request.secret)
        #expect(fixture.failure(of: item, "after a write") == .decode)
    }

    @Test("rolling back the whole ledger with the row shows where other items changed since (a whole-keychain rollback is not detectable)")
    func ledgerRolledBackToo() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        let other = fixture.items[0]
        try fixture.connection.execute(
            "CREATE TEMP TABLE old_ledger AS SELECT * FROM ledger; CREATE TEMP TABLE old_row AS SELECT * FROM items WHERE rowid = \(item.rowID)")
        try fixture.temporary.keychain.update(fixture.keyed(item, returns: []), changes: .newSecret("newer"), context: fixture.context)
        try fixture.temporary.keychain.update(fixture.keyed(other, returns: []), changes: .newSecret("alpha newer"), context: fixture.context)
        try fixture.connection.execute(
            """
            DELETE FROM ledger; INSERT INTO ledger SELECT * FROM old_ledger;
            DELETE FROM items WHERE rowid = \(item.rowID); INSERT INTO items SELECT * FROM old_row
            """)
        // The other item's newer row is not what the old ledger names: detected.
        #expect(fixture.failure(of: other, "item changed since the ledger copy") == .decode)
    }

    @Test("a keychain of schema 3 is upgraded: its items stay readable, and from then on a rollback is detected")
    func upgradeFromVersion3() throws {
        let fixture = try TamperFixture()
        try fixture.temporary.rewriteAsVersion3()
        let upgraded = try fixture.temporary.reopened()
        for item in fixture.items {
            #expect(try upgraded.search(fixture.keyed(item), context: fixture.context).first?.data == item.secret)
        }
        let connection = try SQLiteConnection(path: upgraded.path)
        #expect(try KeychainStore.version(in: connection) == KeychainStore.schemaVersion)
        #expect(try connection.statement("SELECT count(*) FROM items WHERE gen = 0").rows { $0.int64(0) }.first == 4)
        let item = fixture.items[Self.target]
        try connection.execute("CREATE TEMP TABLE old_row AS SELECT * FROM items WHERE rowid = \(item.rowID)")
        try upgraded.update(fixture.keyed(item, returns: []), changes: .newSecret("after the upgrade"), context: fixture.context)
        try connection.execute("DELETE FROM items WHERE rowid = \(item.rowID); INSERT INTO items SELECT * FROM old_row")
        #expect(throws: KeychainError(.decode, "the item failed authentication: it was damaged or altered")) {
            try upgraded.search(fixture.keyed(item), context: fixture.context)
        }
    }
}

@Suite("Rollback ledger upgrade")
struct RollbackLedgerUpgradeTests {
    @Test("a schema-3 keychain of 3 000 items is upgraded: the ledger built from its rows vouches for every item")
    func largeUpgrade() throws {
        let temporary = try TemporaryKeychain()
        let requests = (0..<3000).map { index in
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes = ["svce": .string("bulk"), "acct": .string("\(index)")]
            request.secret = Data("secret \(index)".utf8)
            return request
        }
        try temporary.keychain.add(contentsOf: requests, context: TemporaryKeychain.context)
        try temporary.rewriteAsVersion3()
        let upgraded = try temporary.reopened()
        var scan = ItemRequest(itemClass: .genericPassword)
        scan.matchLimit = .all
        scan.returns = [.attributes, .data]
        let found = try upgraded.search(scan, context: TemporaryKeychain.context)
        #expect(found.count == 3000)
        #expect(found.allSatisfy { result in
            guard case .string(let account)? = result.attributes?["acct"] else { return false }
            return result.data == Data("secret \(account)".utf8)
        })
        let connection = try SQLiteConnection(path: upgraded.path)
        let leaves = try connection.statement("SELECT count(*) FROM ledger WHERE id >= \(RollbackLedger.firstLeafID)")
            .rows { $0.int64(0) }.first ?? 0
        let tokenPrefixes = try connection.statement("SELECT count(DISTINCT substr(pk, 1, 2)) FROM items").rows { $0.int64(0) }.first ?? -1
        #expect(leaves == tokenPrefixes)
    }
}

extension ItemChanges {
    /// Changes that replace the item's secret.
    static func newSecret(_ text: String) -> ItemChanges {
        var changes = ItemChanges()
        changes.secret = Data(text.utf8)
        return changes
    }
}

extension TamperFixture {
    /// A row's generation.
    func generation(row: Int64) throws -> Int64 {
        try #require(try connection.statement("SELECT gen FROM items WHERE rowid = ?").bind([.integer(row)]).rows { $0.int64(0) }.first)
    }

    /// Sets a row's generation.
    func setGeneration(_ generation: Int64, row: Int64) throws {
        try connection.statement("UPDATE items SET gen = ? WHERE rowid = ?").bind([.integer(generation), .integer(row)]).run()
    }
}
