import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore

/// Searches that read the class's rows judge each row's criteria from its encoded record before
/// decoding it; the outcome must be `matches`' on the whole record.
@Suite("Scans rule rows out before decoding them")
struct ScanFilterTests {
    static let context = TemporaryKeychain.context

    static func add(_ keychain: Keychain, _ account: String, _ attributes: ItemAttributes) throws {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes = attributes
        request.attributes["svce"] = .string("scan")
        request.attributes["acct"] = .string(account)
        request.secret = Data(account.utf8)
        _ = try keychain.add(request, context: context)
    }

    static func accounts(_ keychain: Keychain, _ criteria: ItemAttributes, caseInsensitive: Bool = false) throws -> [String] {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes = criteria
        request.caseInsensitive = caseInsensitive
        request.matchLimit = .all
        request.returns = [.attributes]
        do {
            return try keychain.search(request, context: context).compactMap { $0.attributes?["acct"]?.stringValue }.sorted()
        } catch let error as KeychainError where error.code == .itemNotFound {
            return []
        }
    }

    @Test("a blob criterion matches by bytes whatever the type; a missing attribute never matches")
    func blobBytesAndMissingAttributes() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        try Self.add(keychain, "text", ["desc": .string("tier-1"), "icmt": .string("note")])
        try Self.add(keychain, "data", ["desc": .data(Data("tier-1".utf8))])
        try Self.add(keychain, "other", ["desc": .string("tier-2")])
        #expect(try Self.accounts(keychain, ["desc": .string("tier-1")]) == ["data", "text"])
        #expect(try Self.accounts(keychain, ["desc": .data(Data("tier-1".utf8))]) == ["data", "text"])
        #expect(try Self.accounts(keychain, ["icmt": .string("note")]) == ["text"])
        #expect(try Self.accounts(keychain, ["desc": .string("tier-1"), "icmt": .string("note")]) == ["text"])
        #expect(try Self.accounts(keychain, ["desc": .string("tier-3")]) == [])
    }

    @Test("a case-insensitive scan and a number criterion judge rows as matches does")
    func caseInsensitiveAndNumbers() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        try Self.add(keychain, "upper", ["desc": .string("Tier-One"), "crtr": .integer(42)])
        try Self.add(keychain, "lower", ["desc": .string("tier-one"), "crtr": .integer(7)])
        #expect(try Self.accounts(keychain, ["desc": .string("TIER-ONE")], caseInsensitive: true) == ["lower", "upper"])
        #expect(try Self.accounts(keychain, ["desc": .string("tier-one")]) == ["lower"])
        #expect(try Self.accounts(keychain, ["crtr": .integer(42)]) == ["upper"])
    }
}
