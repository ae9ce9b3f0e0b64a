import Foundation
import Testing

@testable import KeychainCore

/// The bytes a primary-key token is computed over. Every keychain already written holds tokens of
/// these bytes, so they never change: the expected message is spelled out byte by byte here, not
/// built with the encoder's own helpers.
@Suite("The primary-key encoding's bytes")
struct PrimaryKeyEncodingTests {
    @Test("a generic password's message: class, then each member's name, length and value, the access group and flag last")
    func genericPasswordMessage() {
        let encoding = PrimaryKeyEncoding(
            itemClass: .genericPassword, attributes: [.service: .string("svc"), .account: .string("me")])
        var expected: [UInt8] = Array("pk".utf8) + [0] + Array("genp".utf8)
        // Blob members (account, service) carry their bytes without a type tag.
        expected += [0] + Array("acct".utf8) + [0, 0, 0, 2] + Array("me".utf8)
        expected += [0] + Array("svce".utf8) + [0, 0, 0, 3] + Array("svc".utf8)
        // The access group is text ("s"), the synchronizable flag an integer ("i", 8 bytes big-endian).
        expected += [0] + Array("agrp".utf8) + [0, 0, 0, 6] + Array("sgroup".utf8)
        expected += [0] + Array("sync".utf8) + [0, 0, 0, 9] + Array("i".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]
        #expect(encoding.message(accessGroup: "group", synchronizable: true) == expected)
    }

    @Test("an omitted member takes its empty value, and non-ASCII text is encoded as its UTF-8 bytes")
    func emptyMemberAndUnicode() {
        let encoding = PrimaryKeyEncoding(itemClass: .genericPassword, attributes: [.service: .string("é")])
        var expected: [UInt8] = Array("pk".utf8) + [0] + Array("genp".utf8)
        expected += [0] + Array("acct".utf8) + [0, 0, 0, 0]
        expected += [0] + Array("svce".utf8) + [0, 0, 0, 2] + [0xC3, 0xA9]
        #expect(encoding.prefix == expected)
    }
}
