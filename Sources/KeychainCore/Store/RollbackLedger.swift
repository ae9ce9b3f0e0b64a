import Foundation
import Synchronization

/// The keychain's record of every item's current generation, kept in the database and
/// authenticated under a key of the keybag, so that a row put back to an older version of itself
/// is recognised (docs/reliability.md §4, "Rollback").
///
/// Every write gives the item's row a new generation (1 for an add, one more for each update),
/// bound into the associated data of both its sealed parts. An older version of the row is still
/// authentic on its own; what gives it away is this ledger, which names the newer generation.
///
/// The ledger is a tree of three levels in the `ledger` table, keyed by a prefix of the item
/// UUID (random, so items spread evenly; `rowID` numbers the rows):
/// - a **leaf** per two-byte prefix lists `UUID ‖ generation` (16 + 8 bytes) of its items, in
///   UUID order (about 15 entries per leaf at a million items);
/// - a **node** per one-byte prefix holds the digests of its (up to 256) leaves;
/// - the **root** (the empty prefix) holds the digests of the (up to 256) nodes.
///
/// Root and node bodies list only their children that exist (`index ‖ digest`), so a small
/// keychain's ledger is a few pages; a full one is 3.3 KiB.
///
/// A digest is the first 12 bytes of HMAC-SHA256 under the ledger key over a level label, the
/// prefix and the body; an absent body (no item below it) has the all-zero digest and no row.
/// Checking an item reads its leaf, its node and the root (one statement), compares two digests
/// and finds the entry; a write changes one entry and two slots (three rows, O(1) in the number
/// of items).
///
/// What it cannot see: the root is trusted as found. Putting back an older copy of the whole
/// ledger together with older rows is a rollback of the whole keychain, which no file on the
/// same disk can reveal (a TPM's monotonic counter could, in a later issue); it shows only where
/// items changed since that copy was taken, which then fail their check.
///
/// A damaged ledger (a leaf or node whose digest does not match the level above) cannot vouch
/// for the items below it: reads of them fail (`errSecDecode`), and the first write below it
/// rebuilds that part from the rows with every entry marked unverifiable, so those items stay
/// unreadable (and can be deleted) while new items there work, and nothing damaged is blessed.
struct RollbackLedger: Sendable {
    /// The ledger key (derived from the keybag's index key, available whenever the keychain is).
    let key: SymmetricKey
    /// The last node body hashed under each one-byte prefix, with its digest: a node is hashed
    /// again only when it changed (a node is up to 3.3 KiB; a leaf a few entries).
    private let nodeDigests = NodeDigests()

    init(key: SymmetricKey) {
        self.key = key
    }

    /// The generation stored for entries that the ledger cannot vouch for: no row has it.
    static let unverifiable: Int64 = -1

    /// The bytes of a digest kept in a slot (a truncated HMAC-SHA256).
    static let digestLength = 12
    /// The bytes of a leaf entry: a UUID and a big-endian generation.
    static let entryLength = 24
    /// A root or node body lists its non-zero slots: `child index ‖ digest`, by index.
    static let slotLength = 1 + digestLength

    /// The `ledger` row id of the root (0), of the node for a one-byte prefix (1…256) and of the
    /// leaf for a two-byte prefix (257…65 792).
    static func rowID(_ prefix: Data) -> Int64 {
        let start = prefix.startIndex
        switch prefix.count {
        case 0: return 0
        case 1: return firstNodeID + Int64(prefix[start])
        default: return firstLeafID + Int64(prefix[start]) * 256 + Int64(prefix[start + 1])
        }
    }

    /// The row id of the node for prefix 0x00.
    static let firstNodeID: Int64 = 1
    /// The row id of the leaf for prefix 0x0000.
    static let firstLeafID: Int64 = 257

    /// The prefixes of the root, node and leaf above `uuid`.
    struct Path: Equatable {
        /// The node's prefix: the UUID's first byte.
        let node: Data
        /// The leaf's prefix: the UUID's first two bytes.
        let leaf: Data

        /// The path above `uuid`.
        init(uuid: Data) {
            node = Data(uuid.prefix(1))
            leaf = Data(uuid.prefix(2))
        }
    }

    /// The three bodies on an item's path as read from the database (nil where no row exists).
    struct Evidence {
        var root: Data?
        var node: Data?
        var leaf: Data?
    }

    // MARK: - Digests

    /// The digest of a body at `prefix` (its length gives the level); all zeros for no body.
    func digest(prefix: Data, body: Data?) throws -> Data {
        try body.withUnsafeBytesOrNil { try digest(prefix: prefix, body: $0) }
    }

    /// `digest` of a lent body. A node's digest is taken from the last one computed for that
    /// prefix when the body is the same.
    func digest(prefix: Data, body: UnsafeRawBufferPointer?) throws -> Data {
        guard let body, !body.isEmpty else { return Data(count: Self.digestLength) }
        guard prefix.count == 1 else { return try computeDigest(prefix: prefix, body: body) }
        let index = prefix[prefix.startIndex]
        if let known = nodeDigests.digest(of: body, at: index) { return known }
        let digest = try computeDigest(prefix: prefix, body: body)
        nodeDigests.remember(digest, of: Data(body), at: index)
        return digest
    }

    private func computeDigest(prefix: Data, body: UnsafeRawBufferPointer) throws -> Data {
        var message = [UInt8]()
        message.reserveCapacity(Self.leafLabel.count + 1 + prefix.count + body.count)
        message.append(contentsOf: prefix.count == 2 ? Self.leafLabel : Self.nodeLabel)
        message.append(UInt8(prefix.count))
        prefix.withUnsafeBytes { message.append(contentsOf: $0) }
        message.append(contentsOf: body)
        return try key.authenticationCode(for: message).prefix(Self.digestLength)
    }

    private static let leafLabel = Array("ledger leaf v1\u{0}".utf8)
    private static let nodeLabel = Array("ledger node v1\u{0}".utf8)

    /// Twelve zero bytes, allocated once for the life of the process.
    nonisolated(unsafe) private static let zeroSlot: UnsafeRawBufferPointer = {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: digestLength, alignment: 1)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        return UnsafeRawBufferPointer(bytes)
    }()

    /// The slot's bytes, lent from `body` (or the zero slot).
    private static func slot(in body: UnsafeRawBufferPointer?, _ index: UInt8) -> UnsafeRawBufferPointer {
        guard let body, body.count % slotLength == 0 else { return zeroSlot }
        var low = 0
        var high = body.count / slotLength
        while low < high {
            let middle = (low + high) / 2
            let start = middle * slotLength
            let found = body[start]
            if found == index { return UnsafeRawBufferPointer(rebasing: body[(start + 1)..<(start + slotLength)]) }
            if found < index { low = middle + 1 } else { high = middle }
        }
        return zeroSlot
    }

    /// Whether a root or node body's slot for child `index` holds `digest`.
    static func slot(_ body: Data?, _ index: UInt8, holds digest: Data) -> Bool {
        body.withUnsafeBytesOrNil { body in
            digest.withUnsafeBytes { OpenSSL.constantTimeEqual(slot(in: body, index), $0) }
        }
    }

    /// `body` with the slot for child `index` set to `digest`; nil when every slot is then zero.
    static func setting(_ body: Data?, _ index: UInt8, to digest: Data) -> Data? {
        var bytes = body.flatMap { $0.count % slotLength == 0 ? [UInt8]($0) : nil } ?? []
        var low = 0
        var high = bytes.count / slotLength
        while low < high {
            let middle = (low + high) / 2
            if bytes[middle * slotLength] < index { low = middle + 1 } else { high = middle }
        }
        let start = low * slotLength
        let present = start < bytes.count && bytes[start] == index
        let keep = digest.contains { $0 != 0 }
        switch (present, keep) {
        case (true, true): bytes.replaceSubrange((start + 1)..<(start + slotLength), with: digest)
        case (true, false): bytes.removeSubrange(start..<(start + slotLength))
        case (false, true): bytes.insert(contentsOf: [index] + digest, at: start)
        case (false, false): break
        }
        return bytes.isEmpty ? nil : Data(bytes)
    }

    // MARK: - Leaves

    /// The generation a leaf body records for `uuid`, if any.
    static func generation(of uuid: Data, in leaf: UnsafeRawBufferPointer?) -> Int64? {
        guard let leaf, leaf.count % entryLength == 0 else { return nil }
        return uuid.withUnsafeBytes { uuid -> Int64? in
            var low = 0
            var high = leaf.count / entryLength
            while low < high {
                let middle = (low + high) / 2
                let entry = middle * entryLength
                let order = memcmp(leaf.baseAddress! + entry, uuid.baseAddress!, 16)
                if order == 0 {
                    return (0..<8).reduce(Int64(0)) { value, offset in value << 8 | Int64(leaf[entry + 16 + offset]) }
                }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// `leaf` with `uuid`'s entry set to `generation` (removed when nil), in UUID order; nil
    /// when no entry is left.
    static func setting(_ leaf: Data?, _ uuid: Data, to generation: Int64?) -> Data? {
        var entries: [(uuid: Data, generation: Int64)] = []
        if let leaf, leaf.count % entryLength == 0 {
            leaf.withUnsafeBytes { bytes in
                for entry in stride(from: 0, to: bytes.count, by: entryLength) {
                    let value = (0..<8).reduce(Int64(0)) { $0 << 8 | Int64(bytes[entry + 16 + $1]) }
                    entries.append((Data(bytes[entry..<(entry + 16)]), value))
                }
            }
        }
        entries.removeAll { $0.uuid == uuid }
        if let generation { entries.append((uuid, generation)) }
        guard !entries.isEmpty else { return nil }
        return encode(entries)
    }

    /// A leaf body from entries in any order.
    static func encode(_ entries: [(uuid: Data, generation: Int64)]) -> Data {
        var body = Data(capacity: entries.count * entryLength)
        for entry in entries.sorted(by: { $0.uuid.lexicographicallyPrecedes($1.uuid) }) {
            body.append(entry.uuid)
            withUnsafeBytes(of: entry.generation.bigEndian) { body.append(contentsOf: $0) }
        }
        return body
    }

    // MARK: - Checking an item

    /// Whether the ledger, with the root, node and leaf bodies above `uuid` as read from the
    /// database (lent; nil where no row exists), names generation `generation` for it: the
    /// node's digest matches the root's slot, the leaf's the node's, and the leaf's entry the
    /// generation.
    func vouches(
        for uuid: Data, generation: Int64,
        root: UnsafeRawBufferPointer?, node: UnsafeRawBufferPointer?, leaf: UnsafeRawBufferPointer?
    ) throws -> Bool {
        guard uuid.count == 16 else { return false }
        let path = Path(uuid: uuid)
        let nodeDigest = try digest(prefix: path.node, body: node)
        let leafDigest = try digest(prefix: path.leaf, body: leaf)
        let linked = nodeDigest.withUnsafeBytes { nodeDigest in
            leafDigest.withUnsafeBytes { leafDigest in
                OpenSSL.constantTimeEqual(Self.slot(in: root, uuid[uuid.startIndex]), nodeDigest)
                    && OpenSSL.constantTimeEqual(Self.slot(in: node, uuid[uuid.startIndex + 1]), leafDigest)
            }
        }
        return linked && Self.generation(of: uuid, in: leaf) == generation
    }
}

extension Optional where Wrapped == Data {
    /// The data's bytes lent to `body`, or nil.
    func withUnsafeBytesOrNil<T>(_ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        guard let data = self else { return try body(nil) }
        return try data.withUnsafeBytes { try body($0) }
    }
}

/// The digest of the node body last hashed under each one-byte prefix (at most 256 bodies of up to
/// 3.3 KiB). A digest depends on nothing but the body, so a remembered one is right whatever
/// happens to the transaction that computed it.
private final class NodeDigests: Sendable {
    private let nodes = Mutex<[(body: Data, digest: Data)?]>(Array(repeating: nil, count: 256))

    /// The digest of `body` under prefix `index`, if that body was the last hashed there.
    func digest(of body: UnsafeRawBufferPointer, at index: UInt8) -> Data? {
        nodes.withLock { nodes in
            guard let known = nodes[Int(index)], known.body.count == body.count else { return nil }
            let same = known.body.withUnsafeBytes { memcmp($0.baseAddress!, body.baseAddress!, body.count) == 0 }
            return same ? known.digest : nil
        }
    }

    /// Remembers `digest` as the digest of `body` under prefix `index`.
    func remember(_ digest: Data, of body: Data, at index: UInt8) {
        nodes.withLock { $0[Int(index)] = (body, digest) }
    }
}
