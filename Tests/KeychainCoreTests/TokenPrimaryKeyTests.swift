import Foundation
import Testing

@testable import KeychainCore

/// The token ID is part of a key's primary key, and a key without one keeps the primary-key
/// bytes it had before the token ID joined the key (so keychains written earlier still find
/// their keys by primary key and still refuse their duplicates).
@Suite("A key's token ID in its primary key")
struct TokenPrimaryKeyTests {
    private let key: ItemAttributes = [
        .keyClass: .integer(1), .type: .integer(73), .applicationTag: .data(Data("tag".utf8)),
        .applicationLabel: .data(Data(repeating: 7, count: 20)), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
    ]

    @Test("a key without a token ID encodes its primary key without the token ID member")
    func softwareKeyEncodingUnchanged() {
        let encoded = PrimaryKeyEncoding(itemClass: .key, attributes: key).prefix
        #expect(!Data(encoded).contains(Data([0] + Array("tkid".utf8))))
        // The members it has, in order, and nothing else before the access group.
        var expected = Array("pk\u{0}keys".utf8)
        for attribute in PrimaryKeyEncoding.leadingMembers(of: .key) where attribute != .tokenID {
            PrimaryKeyEncoding.append(attribute, value: key[attribute] ?? attribute.emptyValue, to: &expected)
        }
        #expect(encoded == expected)
    }

    @Test("the same key with the Secure Enclave token ID has another primary key")
    func tokenKeyDiffers() {
        var token = key
        token[.tokenID] = .string(AsymmetricKey.secureEnclaveTokenID)
        #expect(PrimaryKeyEncoding.leadingMembers(of: .key).contains(.tokenID))
        #expect(PrimaryKeyEncoding(itemClass: .key, attributes: token).prefix != PrimaryKeyEncoding(itemClass: .key, attributes: key).prefix)
    }
}

extension Data {
    fileprivate func contains(_ other: Data) -> Bool { range(of: other) != nil }
}
