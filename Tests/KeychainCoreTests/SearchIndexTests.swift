import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// A search naming an indexed attribute (a primary-key member, the label, the access group) is
/// answered from the search index: it reads only the rows holding the query's tokens, and its
/// answer is the one reading the whole class gives.
@Suite("The search index answers searches by indexed attributes as a scan would")
struct SearchIndexTests {
    static let context = TemporaryKeychain.context
    static let everyGroup = AccessContext(accessGroups: ["*"])

    /// Small pools, so values repeat across items and across attributes.
    static let services = ["mail", "chat", "Mail", "café", "cafe\u{301}"]
    static let accounts = ["ann", "bob", "cy", ""]
    static let labels = ["work", "home"]
    static let groups = ["com.example.one", "com.example.two"]

    /// Adds 48 generic passwords and 16 internet passwords whose values come from the pools
    /// (some as data, which blob attributes compare by bytes like text).
    static func populate(_ keychain: Keychain) throws {
        for index in 0..<48 {
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes["svce"] = .string(services[index % services.count])
            // Accounts cycle through the pool at another period than the services.
            let account = "\(accounts[(index * 7 / 3) % accounts.count])\(index)"
            request.attributes["acct"] = index % 5 == 0 ? .data(Data(account.utf8)) : .string(account)
            if index % 3 != 0 { request.attributes["labl"] = .string(labels[index % 2]) }
            if index % 4 == 0 { request.attributes["desc"] = .string("tier-\(index % 8)") }
            request.attributes["agrp"] = .string(groups[index % 2])
            if index % 7 == 0 { request.synchronizable = .only(true) }
            request.secret = Data("secret-\(index)".utf8)
            _ = try keychain.add(request, context: everyGroup)
        }
        for index in 0..<16 {
            var request = ItemRequest(itemClass: .internetPassword)
            request.attributes["srvr"] = .string(index % 2 == 0 ? "example.com" : "example.org")
            request.attributes["acct"] = .string(accounts[index % accounts.count])
            request.attributes["port"] = .integer(Int64([443, 8443][index % 2 == 0 ? 0 : (index / 2) % 2]))
            request.attributes["path"] = .string("/p\(index % 3)")
            request.attributes["sdmn"] = .string("realm-\(index)")
            request.attributes["agrp"] = .string(groups[0])
            request.secret = Data("inet-\(index)".utf8)
            _ = try keychain.add(request, context: everyGroup)
        }
    }

    /// The persistent references of every match, in the order returned; [] for none.
    static func answer(_ keychain: Keychain, _ request: ItemRequest, context: AccessContext = everyGroup) throws -> [Data] {
        var request = request
        request.matchLimit = .all
        request.returns = [.persistentReference, .attributes]
        do {
            return try keychain.search(request, context: context).compactMap(\.persistentReference)
        } catch let error as KeychainError where error.code == .itemNotFound {
            return []
        }
    }

    /// The queries compared: each indexed attribute alone, pairs and triples, with a non-indexed
    /// criterion, with the synchronizable flag, in either value type.
    static var queries: [ItemRequest] {
        var queries: [ItemRequest] = []
        func query(_ itemClass: ItemClass, _ attributes: ItemAttributes, synchronizable: SynchronizableFilter = .unspecified) {
            var request = ItemRequest(itemClass: itemClass)
            request.attributes = attributes
            request.synchronizable = synchronizable
            queries.append(request)
        }
        for service in services + ["none"] {
            query(.genericPassword, ["svce": .string(service)])
            query(.genericPassword, ["svce": .data(Data(service.utf8))])
            query(.genericPassword, ["svce": .string(service), "labl": .string("work")])
            query(.genericPassword, ["svce": .string(service), "agrp": .string(groups[1]), "labl": .string("home")])
            query(.genericPassword, ["svce": .string(service), "desc": .string("tier-0")])
            query(.genericPassword, ["svce": .string(service)], synchronizable: .only(true))
        }
        for index in [0, 5, 10, 13, 47] {
            for account in accounts {
                query(.genericPassword, ["acct": .string("\(account)\(index)")])
            }
        }
        for label in labels { query(.genericPassword, ["labl": .string(label)]) }
        for group in groups + ["com.example.none"] { query(.genericPassword, ["agrp": .string(group)]) }
        query(.internetPassword, ["srvr": .string("example.com")])
        query(.internetPassword, ["port": .integer(8443)])
        query(.internetPassword, ["port": .integer(443), "path": .string("/p1")])
        query(.internetPassword, ["acct": .string("ann"), "srvr": .string("example.org")])
        return queries
    }

    @Test("every query by indexed attributes gets the same items, in the same order, as reading the whole class")
    func sameAnswerAsScan() throws {
        let temporary = try TemporaryKeychain()
        try Self.populate(temporary.keychain)
        var scanning = TemporaryKeychain.options
        scanning.usesSearchIndex = false
        let scanner = try Keychain.openSeparately(path: temporary.keychain.path, options: scanning)
        var nonEmpty = 0
        for query in Self.queries {
            let indexed = try Self.answer(temporary.keychain, query)
            let scanned = try Self.answer(scanner, query)
            #expect(indexed == scanned, "\(query.itemClass) \(query.attributes.keys.sorted())")
            if !indexed.isEmpty { nonEmpty += 1 }
        }
        // The comparison is not between empty answers.
        #expect(nonEmpty > Self.queries.count / 2)
        #expect(temporary.keychain.queryPlanStatistics.searchIndex == Self.queries.count)
        #expect(temporary.keychain.queryPlanStatistics.scan == 0)
        #expect(scanner.queryPlanStatistics.scan == Self.queries.count)
    }

    @Test("an access group compares as text: a canonically equivalent spelling finds the item through the index too")
    func accessGroupEquivalentSpelling() throws {
        let temporary = try TemporaryKeychain()
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes = ["svce": .string("svc"), "agrp": .string("com.example.caf\u{E9}")]
        request.secret = Data("s".utf8)
        _ = try temporary.keychain.add(request, context: Self.everyGroup)
        var query = ItemRequest(itemClass: .genericPassword)
        query.attributes["agrp"] = .string("com.example.cafe\u{301}")
        var scanning = TemporaryKeychain.options
        scanning.usesSearchIndex = false
        let scanner = try Keychain.openSeparately(path: temporary.keychain.path, options: scanning)
        #expect(try Self.answer(scanner, query).count == 1)
        #expect(try Self.answer(temporary.keychain, query).count == 1)
        #expect(temporary.keychain.queryPlanStatistics.searchIndex == 1)
    }

    @Test("the search statement names the ledger node and leaf above every token, whatever its first two bytes")
    func ledgerRowIDsInSQL() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let first = KeychainStore.byteValue(of: "?1", at: 1)
        let second = KeychainStore.byteValue(of: "?1", at: 2)
        let statement = try connection.statement(
            "SELECT \(RollbackLedger.firstNodeID) + \(first), \(RollbackLedger.firstLeafID) + \(first) * 256 + \(second)")
        for high in 0...255 {
            for low in [0, 1, high, 254, 255] {
                let token = Data([UInt8(high), UInt8(low)] + Array(repeating: 0x5a, count: 30))
                let ids = try #require(RollbackLedger.rowIDs(above: token))
                let inSQL = try statement.bind([.blob(token)]).rows { ($0.int64(0), $0.int64(1)) }.first
                #expect(inSQL?.0 == ids.node && inSQL?.1 == ids.leaf, "token \(high), \(low)")
            }
        }
    }

    @Test("a search by service reads only the rows of that service; one naming no indexed attribute reads the class")
    func readsOnlyMatchingRows() throws {
        let temporary = try TemporaryKeychain()
        try Self.populate(temporary.keychain)
        let before = temporary.keychain.queryPlanStatistics
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string("chat")
        #expect(try Self.answer(temporary.keychain, request).count == 48 / Self.services.count + 1)
        var after = temporary.keychain.queryPlanStatistics
        #expect(after.searchIndex == before.searchIndex + 1)
        #expect(after.rowsExamined - before.rowsExamined == 48 / Self.services.count + 1)

        var byDescription = ItemRequest(itemClass: .genericPassword)
        byDescription.attributes["desc"] = .string("tier-4")
        #expect(try Self.answer(temporary.keychain, byDescription).count == 6)
        let scanned = temporary.keychain.queryPlanStatistics
        #expect(scanned.scan == after.scan + 1)
        #expect(scanned.rowsExamined - after.rowsExamined == 48)

        after = scanned
        var caseInsensitive = request
        caseInsensitive.caseInsensitive = true
        #expect(try Self.answer(temporary.keychain, caseInsensitive).count == 10)
        #expect(temporary.keychain.queryPlanStatistics.scan == after.scan + 1)
    }

    @Test("an update moves the item's index entries, a delete removes them, and a caller sees only its groups")
    func upkeep() throws {
        let temporary = try TemporaryKeychain()
        try Self.populate(temporary.keychain)
        func entries() throws -> Int64 {
            try SQLiteConnection(path: temporary.keychain.path).statement("SELECT count(*) FROM search_index").rows { $0.int64(0) }.first ?? -1
        }
        let initial = try entries()
        var mail = ItemRequest(itemClass: .genericPassword)
        mail.attributes["svce"] = .string("mail")
        let mailItems = try Self.answer(temporary.keychain, mail)
        var changes = ItemChanges()
        changes.attributes["svce"] = .string("post")
        try temporary.keychain.update(mail, changes: changes, context: Self.everyGroup)
        #expect(try Self.answer(temporary.keychain, mail) == [])
        var post = ItemRequest(itemClass: .genericPassword)
        post.attributes["svce"] = .string("post")
        #expect(try Self.answer(temporary.keychain, post) == mailItems)
        #expect(try entries() == initial)

        // A change of a non-indexed attribute leaves the entries as they are.
        var comment = ItemChanges()
        comment.attributes["icmt"] = .string("noted")
        try temporary.keychain.update(post, changes: comment, context: Self.everyGroup)
        #expect(try Self.answer(temporary.keychain, post) == mailItems)
        #expect(try entries() == initial)

        // Only the caller's groups: the other group's rows are opened but never returned.
        let one = AccessContext(accessGroups: [Self.groups[0]])
        let seen = try Self.answer(temporary.keychain, post, context: one)
        #expect(!seen.isEmpty && seen.count < mailItems.count)

        #expect(try temporary.keychain.delete(ItemRequest(itemClass: .genericPassword), context: Self.everyGroup) == 48)
        #expect(try temporary.keychain.delete(ItemRequest(itemClass: .internetPassword), context: Self.everyGroup) == 16)
        #expect(try entries() == 0)
    }

    @Test("a keychain of schema 5 is indexed when opened; rows of a locked class wait for the unlock and are found meanwhile")
    func upgradeFromSchema5() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        for (index, protection) in [Protection.afterFirstUnlock, .whenUnlocked, .always].enumerated() {
            for copy in 0..<3 {
                var request = ItemRequest(itemClass: .genericPassword)
                request.attributes["svce"] = .string("svc")
                request.attributes["acct"] = .string("\(protection.rawValue)-\(copy)")
                request.attributes["pdmn"] = .string(protection.rawValue)
                request.attributes["labl"] = .string("class-\(index)")
                request.secret = Data("s".utf8)
                _ = try temporary.keychain.add(request, context: Self.context)
            }
        }
        try temporary.rewriteAsVersion5()
        func unindexed(_ keychain: Keychain) throws -> Int64 {
            try SQLiteConnection(path: keychain.path).statement("SELECT count(*) FROM items WHERE idx IS NULL").rows { $0.int64(0) }.first ?? -1
        }
        // A new process before the first unlock: only class D (`.always`) opens.
        let upgraded = try temporary.reopened()
        #expect(try KeychainStore.version(in: SQLiteConnection(path: upgraded.path)) == KeychainStore.schemaVersion)
        #expect(try unindexed(upgraded) == 6)
        // A waiting row of a locked class may match any search of its class: the search meets it
        // and stops, as a scan of the class would.
        var always = ItemRequest(itemClass: .genericPassword)
        always.attributes["labl"] = .string("class-2")
        #expect(status { _ = try Self.answer(upgraded, always, context: Self.context) } == .interactionNotAllowed)

        try upgraded.unlock(passcode: Data("1234".utf8))
        #expect(try unindexed(upgraded) == 0)
        for label in ["class-0", "class-1", "class-2"] {
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes["labl"] = .string(label)
            #expect(try Self.answer(upgraded, request, context: Self.context).count == 3)
        }
        // Indexed now, a row of another label no longer stops a locked search.
        upgraded.lock()
        #expect(try Self.answer(upgraded, always, context: Self.context).count == 3)
    }

    @Test("the index holds keyed tokens: no value is in the file, and only items sharing a value share a token")
    func tokensRevealEqualityOnly() throws {
        let temporary = try TemporaryKeychain()
        try Self.populate(temporary.keychain)
        let connection = try SQLiteConnection(path: temporary.keychain.path)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let file = try Data(contentsOf: URL(fileURLWithPath: temporary.keychain.path))
        for value in ["example.com", "com.example.one", "work", "tier-0", "mail"] {
            #expect(file.range(of: Data(value.utf8)) == nil, "\(value) is in the file")
        }
        // Each value of each attribute has its token; the ten items of one service share one.
        let tokensPerItem = try connection.statement("SELECT token, count(*) FROM search_index GROUP BY token").rows {
            ($0.blob(0) ?? Data(), $0.int64(1))
        }
        #expect(tokensPerItem.allSatisfy { $0.0.count == SearchIndexEncoding.tokenLength })
        let serviceToken = try temporary.keychain.store.sealer.searchToken(
            itemClass: .genericPassword, attribute: AttributeCatalog.attribute(named: "svce")!, value: .string("chat"))
        #expect(tokensPerItem.first { $0.0 == serviceToken }?.1 == 10)
    }

    @Test("an index entry removed behind the keychain's back hides its item from searches by that value only")
    func removedEntryHidesFromIndexedSearchOnly() throws {
        let temporary = try TemporaryKeychain()
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes = ["svce": .string("svc"), "acct": .string("a"), "labl": .string("l")]
        request.secret = Data("s".utf8)
        _ = try temporary.keychain.add(request, context: Self.context)
        let token = try temporary.keychain.store.sealer.searchToken(
            itemClass: .genericPassword, attribute: AttributeCatalog.attribute(named: "svce")!, value: .string("svc"))
        try SQLiteConnection(path: temporary.keychain.path).statement("DELETE FROM search_index WHERE token = ?").bind([.blob(token)]).run()

        var byService = ItemRequest(itemClass: .genericPassword)
        byService.attributes["svce"] = .string("svc")
        #expect(try Self.answer(temporary.keychain, byService, context: Self.context) == [])
        // The item is intact: its key, its label and a scan of the class still find it.
        var byKey = ItemRequest(itemClass: .genericPassword)
        byKey.attributes = ["svce": .string("svc"), "acct": .string("a")]
        #expect(try Self.answer(temporary.keychain, byKey, context: Self.context).count == 1)
        var byLabel = ItemRequest(itemClass: .genericPassword)
        byLabel.attributes["labl"] = .string("l")
        #expect(try Self.answer(temporary.keychain, byLabel, context: Self.context).count == 1)
        #expect(try Self.answer(temporary.keychain, ItemRequest(itemClass: .genericPassword), context: Self.context).count == 1)
    }

    @Test("the index's row walk refuses no token or more than its statements check with errSecParam, never a trap; a query naming more indexed values than that is answered")
    func tokenCountOutOfRange() throws {
        let temporary = try TemporaryKeychain()
        try Self.populate(temporary.keychain)
        for count in [0, KeychainStore.maximumSearchTokens + 1] {
            let tokens = Array(repeating: Data(count: SearchIndexEncoding.tokenLength), count: count)
            let error = #expect(throws: KeychainError.self, "\(count) tokens") {
                try temporary.keychain.reading { tx in try tx.searchRows(itemClass: .genericPassword, tokens: tokens) { _, _ in true } }
            }
            #expect(error?.code == .param)
        }
        // Server, account, path and access group: four indexed values (not the whole primary
        // key), of which the planner uses three.
        var request = ItemRequest(itemClass: .internetPassword)
        request.attributes["srvr"] = .string("example.org")
        request.attributes["acct"] = .string("bob")
        request.attributes["path"] = .string("/p2")
        request.attributes["agrp"] = .string(Self.groups[0])
        #expect(AttributeCatalog.searchIndexed(of: .internetPassword).filter { request.attributes.contains($0) }.count
            > KeychainStore.maximumSearchTokens)
        let before = temporary.keychain.queryPlanStatistics
        #expect(try Self.answer(temporary.keychain, request).count == 1)
        #expect(temporary.keychain.queryPlanStatistics.searchIndex == before.searchIndex + 1)
    }
}
