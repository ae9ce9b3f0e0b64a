import Foundation
import KeychainCrypto

/// The rollback ledger's root (`RollbackLedger`): the node digests and what must hold for the
/// keychain as a whole, authenticated by a MAC under the ledger key.
///
/// Stored as `version ‖ flags ‖ count per stored class (big-endian 64-bit) ‖ registry digest ‖
/// program registry digest ‖ node slots ‖ MAC`, the MAC being the first 16 bytes of HMAC-SHA256
/// over everything before it. A version-2 root (written before programs could be registered) has
/// no program registry digest: it reads as an empty program registry's. A version-4 root (written
/// only once a TPM rollback counter binds the keychain) has the counter's value, 64-bit, after
/// the program registry digest.
/// No root row means an empty ledger: no item, no group, no program, no synchronizable item.
struct LedgerRoot: Equatable, Sendable {
    /// The format this code writes.
    static let version: UInt8 = 3
    /// The format of a root bound to a TPM rollback counter.
    static let counterVersion: UInt8 = 4
    /// The MAC's length.
    static let macLength = 16
    private static let label = Array("ledger root v2\u{0}".utf8)
    private static let version2HeaderLength = 2 + 8 * ItemClass.stored.count + RollbackLedger.digestLength
    private static let headerLength = version2HeaderLength + RollbackLedger.digestLength

    /// Whether synchronizable items may exist: set when one is written, cleared only when every
    /// row goes (a restore). Lookups that leave the synchronizable flag open try the second
    /// token only when it is set.
    var synchronizableItems = false
    /// The number of items of each stored class (`ItemClass.stored` order).
    var counts = [Int64](repeating: 0, count: ItemClass.stored.count)
    /// The digest of the access-group registry (all zeros while it is empty).
    var registry = Data(count: RollbackLedger.digestLength)
    /// The digest of the program registry (`KeychainStore.programRegistryDigest`; all zeros
    /// while it is empty).
    var programs = Data(count: RollbackLedger.digestLength)
    /// The node slots (`index ‖ digest`, by index); nil when no node exists.
    var slots: Data?
    /// The TPM rollback counter's value at the last write (`RollbackCounter`); 0 when the
    /// keychain is not bound to one.
    var counter: UInt64 = 0

    /// An empty ledger's root.
    init() {}

    /// The root a stored body holds, when its MAC verifies under `key`; nil otherwise (altered,
    /// malformed, or of another format).
    init?(verifying body: UnsafeRawBufferPointer, key: SymmetricKey) throws {
        guard let format = body.first, format == 2 || format == Self.version || format == Self.counterVersion else { return nil }
        let headerLength = format == 2 ? Self.version2HeaderLength : format == Self.counterVersion ? Self.headerLength + 8 : Self.headerLength
        guard body.count >= headerLength + Self.macLength,
            (body.count - headerLength - Self.macLength) % RollbackLedger.slotLength == 0
        else { return nil }
        let signed = UnsafeRawBufferPointer(rebasing: body[0..<(body.count - Self.macLength)])
        let expected = try Self.mac(signed, key: key)
        let found = UnsafeRawBufferPointer(rebasing: body[(body.count - Self.macLength)...])
        guard expected.withUnsafeBytes({ OpenSSL.constantTimeEqual($0, found) }) else { return nil }
        synchronizableItems = body[1] & 1 != 0
        for index in counts.indices {
            counts[index] = (0..<8).reduce(Int64(0)) { $0 << 8 | Int64(body[2 + index * 8 + $1]) }
        }
        let registryStart = 2 + 8 * counts.count
        registry = Data(body[registryStart..<(registryStart + RollbackLedger.digestLength)])
        if format != 2 {
            let programsStart = registryStart + RollbackLedger.digestLength
            programs = Data(body[programsStart..<(programsStart + RollbackLedger.digestLength)])
        }
        if format == Self.counterVersion {
            let counterStart = Self.headerLength
            counter = (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(body[counterStart + $1]) }
        }
        let slotBytes = body[headerLength..<(body.count - Self.macLength)]
        slots = slotBytes.isEmpty ? nil : Data(slotBytes)
    }

    /// The stored body, MAC included; nil for an empty ledger's root (no row is stored).
    func encoded(key: SymmetricKey) throws -> Data? {
        guard self != LedgerRoot() else { return nil }
        var body = Data(capacity: Self.headerLength + (slots?.count ?? 0) + Self.macLength)
        body.append(counter == 0 ? Self.version : Self.counterVersion)
        body.append(synchronizableItems ? 1 : 0)
        for count in counts { withUnsafeBytes(of: count.bigEndian) { body.append(contentsOf: $0) } }
        body.append(registry)
        body.append(programs)
        if counter != 0 { withUnsafeBytes(of: counter.bigEndian) { body.append(contentsOf: $0) } }
        if let slots { body.append(slots) }
        let mac = try body.withUnsafeBytes { try Self.mac($0, key: key) }
        body.append(mac)
        return body
    }

    /// The number of items of `itemClass`.
    func count(of itemClass: ItemClass) -> Int64 {
        ItemClass.stored.firstIndex(of: itemClass).map { counts[$0] } ?? 0
    }

    /// Adds `delta` to the count of `itemClass`.
    mutating func adjustCount(of itemClass: ItemClass, by delta: Int64) {
        guard let index = ItemClass.stored.firstIndex(of: itemClass) else { return }
        counts[index] += delta
    }

    private static func mac(_ signed: UnsafeRawBufferPointer, key: SymmetricKey) throws -> Data {
        var message = label
        message.append(contentsOf: signed)
        return try key.authenticationCode(for: message).prefix(macLength)
    }
}

extension ItemClass {
    /// The class's code in ledger entries: its position among the stored classes, from 1.
    var ledgerCode: UInt8 {
        UInt8((ItemClass.stored.firstIndex(of: self) ?? -1) + 1)
    }

    /// The stored class with ledger code `code`.
    init?(ledgerCode code: UInt8) {
        guard code >= 1, Int(code) <= ItemClass.stored.count else { return nil }
        self = ItemClass.stored[Int(code) - 1]
    }
}
