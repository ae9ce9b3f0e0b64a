import Foundation
import Testing

@testable import KeychainCore
import KeychainSQLite

/// A keychain of four items (three generic passwords, one internet password) for tamper tests,
/// with direct access to its rows.
struct TamperFixture {
    /// One item: how to find it and what it holds.
    struct Item {
        let itemClass: ItemClass
        let key: ItemAttributes
        let secret: Data
        var rowID: Int64 = 0
    }

    let temporary: TemporaryKeychain
    var items: [Item] = [
        Item(itemClass: .genericPassword, key: ["svce": .string("alpha"), "acct": .string("1")],
             secret: Data("secret-of-alpha-0123456789abcdef".utf8)),
        Item(itemClass: .genericPassword, key: ["svce": .string("bravo"), "acct": .string("2")],
             secret: Data("secret-of-bravo-0123456789abcdef".utf8)),
        Item(itemClass: .genericPassword, key: ["svce": .string("charlie"), "acct": .string("3")],
             secret: Data("secret-of-charlie-0123456789abcd".utf8)),
        Item(itemClass: .internetPassword,
             key: ["srvr": .string("delta.example"), "acct": .string("4"), "ptcl": .string("htps")],
             secret: Data("secret-of-delta-0123456789abcdef".utf8)),
    ]
    let connection: SQLiteConnection

    init() throws {
        temporary = try TemporaryKeychain()
        for index in items.indices {
            var request = ItemRequest(itemClass: items[index].itemClass)
            request.attributes = items[index].key
            request.secret = items[index].secret
            _ = try temporary.keychain.add(request, context: TemporaryKeychain.context)
            items[index].rowID = Int64(index + 1)
        }
        connection = try SQLiteConnection(path: temporary.keychain.path)
        try connection.execute("PRAGMA synchronous = OFF")
    }

    var context: AccessContext { TemporaryKeychain.context }

    /// A request naming `item` by its whole primary key.
    func keyed(_ item: Item, returns: ReturnOptions = [.data]) -> ItemRequest {
        var request = ItemRequest(itemClass: item.itemClass)
        request.attributes = item.key
        request.returns = returns
        return request
    }

    /// The item's secret, looked up by its primary key.
    func secret(of item: Item) throws -> Data? {
        try temporary.keychain.search(keyed(item), context: context).first?.data
    }

    // MARK: - Raw rows

    /// A column's bytes in a row (text columns as their UTF-8 bytes).
    func value(_ column: String, row: Int64) throws -> Data {
        try #require(
            try connection.statement("SELECT \(column) FROM items WHERE rowid = ?").bind([.integer(row)])
                .rows { $0.blob(0) ?? Data() }.first)
    }

    /// Writes a column's bytes, keeping its SQL type (`class` is text).
    func setValue(_ bytes: Data, _ column: String, row: Int64) throws {
        let placeholder = column == "class" ? "CAST(? AS TEXT)" : "?"
        try connection.statement("UPDATE items SET \(column) = \(placeholder) WHERE rowid = ?")
            .bind([.blob(bytes), .integer(row)]).run()
    }

    /// Exchanges `columns` between two rows.
    func swap(_ columns: [String], _ first: Int64, _ second: Int64) throws {
        for column in columns {
            let a = try value(column, row: first)
            let b = try value(column, row: second)
            // Unique columns need a free value while the other row still holds the old one.
            try setValue(Data("swap-in-progress".utf8), column, row: first)
            try setValue(a, column, row: second)
            try setValue(b, column, row: first)
        }
    }

    // MARK: - Checks

    /// Records an issue unless every item but `damaged` reads back its own secret by key, by
    /// scan and in a dump, and `damaged` never appears with any secret.
    func expectOthersIntact(except damaged: Set<Int>, _ comment: String) throws {
        for (index, item) in items.enumerated() where !damaged.contains(index) {
            #expect(try secret(of: item) == item.secret, "item \(index) by key, \(comment)")
        }
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            var scan = ItemRequest(itemClass: itemClass)
            scan.matchLimit = .all
            scan.returns = [.data, .attributes]
            let found = (try? temporary.keychain.search(scan, context: context)) ?? []
            let expected = items.enumerated().filter { $0.element.itemClass == itemClass && !damaged.contains($0.offset) }
            #expect(found.count == expected.count, "\(itemClass) scan, \(comment)")
            for result in found {
                let owner = items.first { item in item.key.allSatisfy { result.attributes?[$0.key] == $0.value } }
                #expect(owner.map { result.data == $0.secret } == true, "scan returned a foreign secret, \(comment)")
            }
        }
        let dump = try temporary.keychain.allItems(context: context, includingData: true)
        #expect(dump.count == items.count - damaged.count, "dump, \(comment)")
        for result in dump {
            let owner = items.first { item in item.key.allSatisfy { result.attributes?[$0.key] == $0.value } }
            #expect(owner.map { result.data == $0.secret } == true, "dump returned a foreign secret, \(comment)")
        }
    }

    /// The status a keyed lookup of `item` fails with; records an issue if it returns a secret.
    func failure(of item: Item, _ comment: String) -> KeychainError.Code? {
        do {
            let data = try secret(of: item)
            let owner = items.firstIndex { $0.secret == data }.map { "item \($0)'s" } ?? "a foreign"
            Issue.record("a damaged item was read, yielding \(owner) secret: \(comment)")
            return nil
        } catch let error as KeychainError {
            return error.code
        } catch {
            Issue.record("unexpected error \(error): \(comment)")
            return nil
        }
    }
}
