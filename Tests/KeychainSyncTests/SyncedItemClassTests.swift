import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// What a record carries for each class, without a server: keys and certificates round-trip with
/// every attribute their owner set, are told apart by their class's primary key, and a key in a
/// token never travels.
@Suite("Synced items of every class")
struct SyncedItemClassTests {
    static func keyResult(tag: String, token: String? = nil, label: String = "key") -> ItemResult {
        var result = ItemResult(itemClass: .key)
        var attributes: ItemAttributes = [
            .type: .integer(73), .keyClass: .integer(1), .applicationTag: .data(Data(tag.utf8)),
            .applicationLabel: .data(Data(repeating: 7, count: 20)), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
            .label: .string(label), .accessible: .string(Protection.whenUnlocked.rawValue), .accessGroup: .string("group"),
            .synchronizable: .integer(1), .canSign: .integer(1), .creationDate: .date(Date()),
        ]
        attributes[.tokenID] = .string(token ?? "")
        result.attributes = attributes
        result.data = Data("private key bytes".utf8)
        return result
    }

    @Test("a software key round-trips with its attributes and secret, and is added without a token ID")
    func softwareKeyRoundTrips() throws {
        let item = SyncedItem(Self.keyResult(tag: "signing"))
        #expect(item.maySync)
        let decoded = try SyncedItem.decode(item.encoded())
        #expect(decoded == item)
        #expect(decoded.value(.applicationTag) == .data(Data("signing".utf8)))
        #expect(decoded.value(.canSign) == .integer(1))
        #expect(decoded.value(.creationDate) == nil)
        #expect(decoded.addRequest().attributes[.tokenID] == nil)
        #expect(decoded.changes().attributes[.tokenID] == nil)
        #expect(decoded.addRequest().secret == Data("private key bytes".utf8))
    }

    @Test("keys are told apart by their class's primary key (the application tag is part of it, the label is not)")
    func keysKeyedByTheirPrimaryKey() throws {
        let first = SyncedItem(Self.keyResult(tag: "one"))
        #expect(try first.primaryKeyDigest() != SyncedItem(Self.keyResult(tag: "two")).primaryKeyDigest())
        #expect(try first.primaryKeyDigest() == SyncedItem(Self.keyResult(tag: "one", label: "other")).primaryKeyDigest())
        #expect(try first.contentDigest() != SyncedItem(Self.keyResult(tag: "one", label: "other")).contentDigest())
    }

    @Test("a key in a token (the TPM) may not leave its device, and a record carrying one is refused")
    func tokenKeyNeverTravels() throws {
        let item = SyncedItem(Self.keyResult(tag: "enclave", token: AsymmetricKey.secureEnclaveTokenID))
        #expect(!item.maySync)
        // A record a device of another build (or the server, with the keys) could have sealed:
        // the key's class and its token ID.
        var forged = Data("KSI1".utf8)
        func append(_ bytes: Data) {
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { forged.append(contentsOf: $0) }
            forged.append(bytes)
        }
        append(Data("keys".utf8))
        withUnsafeBytes(of: UInt32(1).bigEndian) { forged.append(contentsOf: $0) }
        append(Data("tkid".utf8))
        forged.append(0)
        append(Data(AsymmetricKey.secureEnclaveTokenID.utf8))
        append(Data("blob".utf8))
        #expect(throws: SyncError.self) { try SyncedItem.decode(forged) }
    }

    @Test("a certificate round-trips; two certificates are one item when their issuer and serial number match")
    func certificateRoundTrips() throws {
        func certificate(serial: UInt8, label: String) -> SyncedItem {
            var result = ItemResult(itemClass: .certificate)
            result.attributes = [
                .certificateType: .integer(3), .certificateEncoding: .integer(3), .issuer: .data(Data("issuer".utf8)),
                .serialNumber: .data(Data([serial])), .subject: .data(Data("subject".utf8)), .label: .string(label),
                .publicKeyHash: .data(Data(repeating: 7, count: 20)), .accessible: .string(Protection.always.rawValue),
                .accessGroup: .string("group"), .synchronizable: .integer(1),
            ]
            result.data = Data("DER".utf8)
            return SyncedItem(result)
        }
        let item = certificate(serial: 1, label: "one")
        #expect(item.maySync)
        #expect(try SyncedItem.decode(item.encoded()) == item)
        #expect(try item.primaryKeyDigest() == certificate(serial: 1, label: "renamed").primaryKeyDigest())
        #expect(try item.primaryKeyDigest() != certificate(serial: 2, label: "one").primaryKeyDigest())
    }

    @Test("an item's encoding and digests are fixed: devices of every version compare them")
    func encodingIsFixed() throws {
        let item = SyncedItem(Self.keyResult(tag: "pinned", label: "caf\u{e9}"))
        let (content, primaryKey) = (try item.contentDigest(), try item.primaryKeyDigest())
        #expect(content == "ca2bec4b70176e8e6fd5e461ecf073eed70dec7485ba19f21ab29e1ead8c12da")
        #expect(primaryKey == "39a0e451f7e65c24ab3306627aca600de25651cd02ad84dc26a5befc4b05c49c")
        #expect(SyncCrypto.hex(item.encoded().prefix(12)) == "4b534931000000046b657973")
    }
}
