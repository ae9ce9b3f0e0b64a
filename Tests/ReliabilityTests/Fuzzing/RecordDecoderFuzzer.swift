import Foundation
import KeychainCrypto

@testable import KeychainCore

/// (d) What the engine reads back from disk, corrupted.
///
/// The first byte picks the decoder. Properties:
/// - the record codec never crashes; what it decodes re-encodes to bytes that decode and
///   re-encode to the same bytes (a stable canonical form);
/// - stored access control and persistent references decode to values that encode back to the
///   input, or fail with `errSecDecode` / `errSecParam`;
/// - sealed rows and secrets of arbitrary bytes never open, and a sealed record altered by the
///   input never opens (nor opens as anything else) unless the alteration changed nothing.
enum RecordDecoderFuzzer {
    /// Fixed keys: the fuzz target needs no key file.
    static let sealer: ItemSealer? = {
        guard let root = try? SymmetricKey(SecureBytes(copying: [UInt8](repeating: 7, count: 32))),
            let index = try? IndexKeys(indexKey: root)
        else { return nil }
        var classKeys: [KeybagClass: SymmetricKey] = [:]
        for keyClass in KeybagClass.allCases where keyClass != .index {
            classKeys[keyClass] = try? root.derive(purpose: "fuzz class \(keyClass.rawValue)")
        }
        guard
            let ring = try? KeyRing(
                index: index, classKeys: classKeys, hasPasscode: false, passcodeClassEntry: nil, autoLock: nil,
                clock: SystemClock())
        else { return nil }
        return ItemSealer(keyRing: ring)
    }()

    static let record = ItemRecord(
        rowID: 1, itemClass: .genericPassword, uuid: Data(repeating: 1, count: 16),
        attributes: ["acct": .string("account"), "svce": .string("service"), "agrp": .string("group"),
                     "sync": .integer(0), "pdmn": .string("ak"), "cdat": .date(Date(timeIntervalSinceReferenceDate: 1))])

    static func run(_ input: inout FuzzInput) throws {
        let selector = input.byte() % 6
        let bytes = Data(input.remainder())
        switch selector {
        case 0: try recordCodec(bytes)
        case 1:
            if let policy = try? AccessControlPolicy(serialized: bytes), policy.serialized != bytes {
                throw FuzzFailure("stored access control did not round-trip")
            }
        case 2:
            if let reference = try? PersistentReference(data: bytes), reference.data != bytes {
                throw FuzzFailure("a persistent reference did not round-trip")
            }
        case 3: try forgedRow(bytes)
        case 4:
            guard let sealer else { return }
            let row = StoredRow(
                rowID: 1, itemClass: .genericPassword, keyClass: "ak", uuid: record.uuid, primaryKeyToken: Data(count: 32),
                metadata: Data(), secret: bytes, isSynchronizable: false, isCurrent: true)
            if case .opened = sealer.openSecret(bytes, sealedIn: row) {
                throw FuzzFailure("arbitrary bytes opened as a secret")
            }
        default: try alteredRecord(bytes)
        }
    }

    private static func recordCodec(_ bytes: Data) throws {
        guard let decoded = try? RecordCodec.decode(bytes) else { return }
        let canonical = RecordCodec.encode(decoded)
        let again = try RecordCodec.decode(canonical)
        guard RecordCodec.encode(again) == canonical else { throw FuzzFailure("the record codec's output is unstable") }
    }

    /// A row whose parts come from the input: it must not open.
    private static func forgedRow(_ bytes: Data) throws {
        guard let sealer, bytes.count >= 48 else { return }
        let row = StoredRow(
            rowID: 1, itemClass: .genericPassword, keyClass: "ak", uuid: bytes.prefix(16),
            primaryKeyToken: bytes.dropFirst(16).prefix(32),
            metadata: bytes.dropFirst(48), secret: nil, isSynchronizable: false, isCurrent: true)
        if case .opened = sealer.open(row) { throw FuzzFailure("a forged row opened") }
    }

    /// A genuine sealed record with bytes changed at input-chosen positions.
    private static func alteredRecord(_ bytes: Data) throws {
        guard let sealer else { return }
        let token = try sealer.primaryKeyToken(itemClass: .genericPassword, attributes: record.attributes)
        var random = try RandomDraw(count: RandomDraw.sealingCount(withSecret: false))
        let sealed = try sealer.sealMetadata(record, token: token, generation: 1, random: &random)
        var altered = sealed
        var changes = FuzzInput(bytes.withUnsafeBytes { UnsafeRawBufferPointer($0) })
        for _ in 0..<min(bytes.count / 3, 8) {
            let position = changes.below(sealed.count + 4)
            let value = changes.byte()
            if position < altered.count {
                altered[altered.startIndex + position] ^= value
            } else {
                altered.append(value)
            }
        }
        let row = StoredRow(
            rowID: 1, itemClass: .genericPassword, keyClass: "ak", uuid: record.uuid, primaryKeyToken: token, metadata: altered,
            secret: nil, isSynchronizable: false, generation: 1, isCurrent: true)
        guard case .opened(let opened) = sealer.open(row) else {
            if altered == sealed { throw FuzzFailure("an unaltered record did not open") }
            return
        }
        guard altered == sealed else { throw FuzzFailure("an altered record opened") }
        guard RecordCodec.encode(opened.attributes) == RecordCodec.encode(record.attributes) else {
            throw FuzzFailure("a record opened with other attributes")
        }
    }
}
