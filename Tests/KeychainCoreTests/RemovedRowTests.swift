import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// Rows and registry entries removed from the database behind the keychain's back are reported
/// as damage (errSecDecode), not taken as absence: the ledger, keyed by primary-key token with an
/// authenticated root, knows which items exist (docs/reliability.md §4).
@Suite("Removed rows and registry entries are damage, not absence")
struct RemovedRowTests {
    static let context = TemporaryKeychain.context

    static func remove(row: Int64, from fixture: TamperFixture) throws {
        try fixture.connection.statement("DELETE FROM items WHERE rowid = ?").bind([.integer(row)]).run()
    }

    @Test("a removed row: a lookup, an update and a reference search by key report errSecDecode; a delete by key ends the damage")
    func removedRowByKey() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[1]
        try Self.remove(row: item.rowID, from: fixture)
        #expect(fixture.failure(of: item, "removed row") == .decode)
        
        var attributes = fixture.keyed(item, returns: [.attributes])
        attributes.matchLimit = .all
        #expect(status { _ = try fixture.temporary.keychain.search(attributes, context: Self.context) } == .decode)
        #expect(status { try fixture.temporary.keychain.update(fixture.keyed(item, returns: []), changes: .newSecret("x"), context: Self.context) } == .decode)
        try fixture.expectOthersIntact(except: [1], "removed row")

        #expect(try fixture.temporary.keychain.delete(fixture.keyed(item, returns: []), context: Self.context) == 1)
        #expect(fixture.failure(of: item, "after the delete") == .itemNotFound)
        var add = ItemRequest(itemClass: item.itemClass)
        add.attributes = item.key
        add.secret = Data("again".utf8)
        _ = try fixture.temporary.keychain.add(add, context: Self.context)
        #expect(try fixture.secret(of: item) == Data("again".utf8))
    }

    @Test("a removed row: a search that reads its class reports errSecDecode when nothing else matches, and returns the rest otherwise")
    func removedRowByScan() throws {
        let fixture = try TamperFixture()
        // The only internet password.
        try Self.remove(row: fixture.items[3].rowID, from: fixture)
        var scan = ItemRequest(itemClass: .internetPassword)
        scan.matchLimit = .all
        scan.returns = [.attributes]
        #expect(status { _ = try fixture.temporary.keychain.search(scan, context: Self.context) } == .decode)
        // A generic password among three: the others are found.
        try Self.remove(row: fixture.items[0].rowID, from: fixture)
        var passwords = ItemRequest(itemClass: .genericPassword)
        passwords.matchLimit = .all
        passwords.returns = [.data]
        #expect(try fixture.temporary.keychain.search(passwords, context: Self.context).count == 2)
        var byService = ItemRequest(itemClass: .genericPassword)
        byService.attributes["svce"] = .string("alpha")
        #expect(status { _ = try fixture.temporary.keychain.search(byService, context: Self.context) } == .decode)

        let (items, damage) = try fixture.temporary.keychain.allItemsWithDamage(context: Self.context, includingData: false)
        #expect(items.count == 2)
        #expect(damage == KeychainDamage(unreadableItems: 0, missingItems: 2))

        // Deleting the whole class ends the damage of its removed rows.
        #expect(try fixture.temporary.keychain.delete(ItemRequest(itemClass: .internetPassword), context: Self.context) == 1)
        #expect(status { _ = try fixture.temporary.keychain.search(scan, context: Self.context) } == .itemNotFound)
        #expect(try fixture.temporary.keychain.allItemsWithDamage(context: Self.context, includingData: false).damage.missingItems == 1)
    }

    @Test("a removed access-group registry entry makes lookups across every group report errSecDecode, never a miss")
    func removedRegistryEntry() throws {
        let fixture = try TamperFixture()
        let everyGroup = AccessContext(accessGroups: ["*"])
        #expect(try fixture.temporary.keychain.search(fixture.keyed(fixture.items[0]), context: everyGroup).first?.data == fixture.items[0].secret)
        try fixture.connection.execute("DELETE FROM access_groups")
        #expect(status { _ = try fixture.temporary.keychain.search(fixture.keyed(fixture.items[0]), context: everyGroup) } == .decode)
        // A caller whose groups are known needs no registry.
        #expect(try fixture.secret(of: fixture.items[0]) == fixture.items[0].secret)
    }

    @Test("an altered ledger root (a node removed with its slot, or the synchronizable-items record cleared) is damage for every item")
    func alteredRoot() throws {
        for attack in ["remove node and slot", "clear synchronizable flag", "remove root"] {
            let fixture = try TamperFixture()
            let item = fixture.items[1]
            let token = try fixture.value("pk", row: item.rowID)
            let rootBody = try #require(try fixture.connection.statement("SELECT body FROM ledger WHERE id = 0").rows { $0.blob(0) }.first ?? nil)
            var forged = rootBody
            switch attack {
            case "remove node and slot":
                // Without the key the attacker cannot recompute the MAC: the slot list shrinks, the MAC stays.
                let root = try #require(try fixture.temporary.keychain.store.ledger.root(rootBody))
                let slots = try #require(root.slots)
                let index = token[token.startIndex]
                let position = try #require(stride(from: 0, to: slots.count, by: RollbackLedger.slotLength).first { slots[slots.startIndex + $0] == index })
                let start = forged.count - LedgerRoot.macLength - slots.count + position
                forged.removeSubrange(start..<(start + RollbackLedger.slotLength))
                try fixture.connection.statement("DELETE FROM ledger WHERE id = ?").bind([.integer(RollbackLedger.rowID(Data(token.prefix(1))))]).run()
                try Self.remove(row: item.rowID, from: fixture)
            case "clear synchronizable flag":
                forged[forged.startIndex + 1] ^= 0x01
            default:
                forged = Data()
            }
            if forged.isEmpty {
                try fixture.connection.execute("DELETE FROM ledger WHERE id = 0")
            } else {
                try fixture.connection.statement("UPDATE ledger SET body = ? WHERE id = 0").bind([.blob(forged)]).run()
            }
            #expect(fixture.failure(of: item, attack) == .decode, "\(attack)")
            #expect(fixture.failure(of: fixture.items[0], attack) == .decode, "\(attack)")
        }
    }

    @Test("a schema-4 keychain is upgraded: a row its ledger refused stays refused, the others read back")
    func upgradeFromVersion4KeepsRefusals() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[1]
        let old = (try fixture.value("metadata", row: item.rowID), try fixture.value("secret", row: item.rowID), try fixture.generation(row: item.rowID))
        try fixture.temporary.keychain.update(fixture.keyed(item, returns: []), changes: .newSecret("newer"), context: Self.context)
        try SchemaFour.rewrite(fixture.temporary)
        // Rolled back while at schema 4: the schema-4 ledger names the newer generation.
        try fixture.setValue(old.0, "metadata", row: item.rowID)
        try fixture.setValue(old.1, "secret", row: item.rowID)
        try fixture.setGeneration(old.2, row: item.rowID)

        let upgraded = try fixture.temporary.reopened()
        let connection = try SQLiteConnection(path: upgraded.path)
        #expect(try KeychainStore.version(in: connection) == KeychainStore.schemaVersion)
        #expect(throws: KeychainError.self) { try upgraded.search(fixture.keyed(item), context: Self.context) }
        for other in [0, 2, 3] {
            #expect(try upgraded.search(fixture.keyed(fixture.items[other]), context: Self.context).first?.data == fixture.items[other].secret)
        }
    }
}

/// Writes a keychain's ledger as schema 4 kept it (keyed by UUID, `UUID ‖ generation` leaves, an
/// unauthenticated root of node slots), every row vouched for as it stands.
enum SchemaFour {
    static func rewrite(_ temporary: TemporaryKeychain) throws {
        let connection = try SQLiteConnection(path: temporary.keychain.path)
        let legacy = LegacyRollbackLedger(key: temporary.keychain.store.ledger.key)
        let rows = try connection.statement("SELECT uuid, gen FROM items ORDER BY uuid").rows { ($0.blob(0)!, $0.int64(1)) }
        var leaves: [Data: Data] = [:]
        for (uuid, generation) in rows {
            var entry = uuid
            withUnsafeBytes(of: generation.bigEndian) { entry.append(contentsOf: $0) }
            leaves[Data(uuid.prefix(2)), default: Data()].append(entry)
        }
        var nodes: [Data: Data?] = [:]
        for (prefix, body) in leaves {
            nodes[Data(prefix.prefix(1)), default: nil] = RollbackLedger.setting(
                nodes[Data(prefix.prefix(1))] ?? nil, prefix[prefix.startIndex + 1], to: try legacy.digest(prefix: prefix, body: body))
        }
        var root: Data?
        for (prefix, body) in nodes {
            root = RollbackLedger.setting(root, prefix[prefix.startIndex], to: try legacy.digest(prefix: prefix, body: body))
        }
        try connection.writeTransaction {
            try connection.execute("DELETE FROM ledger")
            let insert = "INSERT INTO ledger(id, body) VALUES (?, ?)"
            for (prefix, body) in leaves { try connection.statement(insert).bind([.integer(RollbackLedger.rowID(prefix)), .blob(body)]).run() }
            for (prefix, body) in nodes {
                if let body { try connection.statement(insert).bind([.integer(RollbackLedger.rowID(prefix)), .blob(body)]).run() }
            }
            if let root { try connection.statement(insert).bind([.integer(0), .blob(root)]).run() }
            try connection.execute(TemporaryKeychain.withoutSearchIndex + "PRAGMA user_version = 4")
        }
    }
}
