import Foundation
import Testing

@testable import KeychainCore

/// Tamper evidence (docs/reliability.md §4): altered rows are detected, never yield another
/// item's secret, and leave the rest of the keychain readable.
@Suite("Tamper evidence")
struct TamperEvidenceTests {
    /// The item every flip damages (the second generic password).
    static let target = 1

    @Test(
        "a flipped byte in any column of a stored item is detected and never yields a secret; the other items stay readable",
        arguments: ["class", "uuid", "pk", "metadata", "secret"])
    func flippedByte(column: String) throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        let original = try fixture.value(column, row: item.rowID)
        var generator = SystemRandomNumberGenerator()
        for position in 0..<original.count {
            var flipped = original
            flipped[flipped.startIndex + position] ^= UInt8.random(in: 1...255, using: &generator)
            try fixture.setValue(flipped, column, row: item.rowID)
            let comment = "\(column) byte \(position) of \(original.count)"

            // A damaged primary-key token no longer names the row; the ledger still names the
            // item under its token, so the lookup reports the damage rather than an absence.
            #expect(fixture.failure(of: item, comment) == .decode, "\(comment)")
            try fixture.expectOthersIntact(except: [Self.target], comment)

            try fixture.setValue(original, column, row: item.rowID)
        }
        #expect(try fixture.secret(of: item) == item.secret, "restored")
        print("tamper evidence: flipped each of the \(original.count) bytes of column \(column)")
    }

    @Test(
        "swapping columns between two items' rows makes both unreadable, never the other's secret; a third stays readable",
        arguments: [
            ["secret"], ["pk"], ["metadata"], ["uuid"], ["metadata", "secret"], ["pk", "secret"], ["pk", "metadata"],
            ["uuid", "secret"], ["uuid", "metadata"], ["uuid", "pk"], ["uuid", "metadata", "secret"],
            ["pk", "metadata", "secret"], ["uuid", "pk", "secret"], ["uuid", "pk", "metadata"],
        ])
    func swappedColumns(columns: [String]) throws {
        let fixture = try TamperFixture()
        let first = fixture.items[0]
        let second = fixture.items[1]
        try fixture.swap(columns, first.rowID, second.rowID)
        let comment = "swapped \(columns)"
        #expect(fixture.failure(of: first, comment) == .decode, "\(comment)")
        #expect(fixture.failure(of: second, comment) == .decode, "\(comment)")
        try fixture.expectOthersIntact(except: [0, 1], comment)
        try fixture.swap(columns, first.rowID, second.rowID)
        #expect(try fixture.secret(of: first) == first.secret, "swapped back")
    }

    @Test("a damaged item found by its persistent reference is errSecDecode")
    func damagedByPersistentReference() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        let reference = try #require(
            try fixture.temporary.keychain.search(
                fixture.keyed(item, returns: [.persistentReference]), context: fixture.context
            ).first?.persistentReference)
        var metadata = try fixture.value("metadata", row: item.rowID)
        metadata[metadata.startIndex + 20] ^= 0x01
        try fixture.setValue(metadata, "metadata", row: item.rowID)
        var request = ItemRequest(itemClass: .genericPassword)
        request.persistentReference = try PersistentReference(data: reference)
        request.returns = [.data]
        #expect(throws: KeychainError(.decode, "the item failed authentication: it was damaged or altered")) {
            try fixture.temporary.keychain.search(request, context: fixture.context)
        }
    }

    @Test("deleting a damaged item by its primary key removes it, so the key can be added again")
    func deleteDamagedItem() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        var metadata = try fixture.value("metadata", row: item.rowID)
        metadata[metadata.startIndex + 30] ^= 0x80
        try fixture.setValue(metadata, "metadata", row: item.rowID)
        let keychain = fixture.temporary.keychain
        var add = ItemRequest(itemClass: .genericPassword)
        add.attributes = item.key
        add.secret = Data("replacement".utf8)
        #expect(throws: KeychainError.self) { try keychain.add(add, context: fixture.context) }
        #expect(try keychain.delete(fixture.keyed(item, returns: []), context: fixture.context) == 1)
        try fixture.expectOthersIntact(except: [Self.target], "after the delete")
        _ = try keychain.add(add, context: fixture.context)
        #expect(try fixture.secret(of: item) == Data("replacement".utf8))
    }

    @Test("a scan skips a damaged item and a scan-based delete leaves it in place")
    func scansSkipDamagedItems() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        var metadata = try fixture.value("metadata", row: item.rowID)
        metadata[metadata.startIndex + 40] ^= 0x10
        try fixture.setValue(metadata, "metadata", row: item.rowID)
        var everything = ItemRequest(itemClass: .genericPassword)
        everything.matchLimit = .all
        #expect(try fixture.temporary.keychain.delete(everything, context: fixture.context) == 2)
        let remaining = try fixture.connection.statement("SELECT count(*) FROM items WHERE class = 'genp'")
            .rows { $0.int64(0) }.first
        #expect(remaining == 1)
    }

    @Test("updating an item whose secret is damaged is errSecDecode, unless the update replaces the secret")
    func updateDamagedSecret() throws {
        let fixture = try TamperFixture()
        let item = fixture.items[Self.target]
        var secret = try fixture.value("secret", row: item.rowID)
        secret[secret.endIndex - 1] ^= 0x04
        try fixture.setValue(secret, "secret", row: item.rowID)
        var relabel = ItemChanges()
        relabel.attributes["labl"] = .string("new label")
        #expect(throws: KeychainError.self) {
            try fixture.temporary.keychain.update(fixture.keyed(item, returns: []), changes: relabel, context: fixture.context)
        }
        var replace = ItemChanges()
        replace.secret = Data("repaired".utf8)
        try fixture.temporary.keychain.update(fixture.keyed(item, returns: []), changes: replace, context: fixture.context)
        #expect(try fixture.secret(of: item) == Data("repaired".utf8))
    }
}
