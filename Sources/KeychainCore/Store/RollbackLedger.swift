import Foundation

/// The keychain's record of every item's current generation, kept in the database and
/// authenticated under a key of the keybag, so that a row put back to an older version of itself
/// is recognised (docs/reliability.md §4, "Rollback").
///
/// Every write gives the item's row a new generation (1 for an add, one more for each update),
/// bound into the associated data of both its sealed parts. An older version of the row is still
/// authentic on its own; what gives it away is this ledger, which names the newer generation.
///
/// The ledger is a tree of three levels in the `ledger` table, keyed by a prefix of the item
/// UUID (random, so items spread evenly):
/// - a **leaf** per two-byte prefix lists `UUID ‖ generation` (16 + 8 bytes) of its items, in
///   UUID order (about 15 entries per leaf at a million items);
/// - a **node** per one-byte prefix holds the digests of its 256 leaves;
/// - the **root** (the empty prefix) holds the digests of the 256 nodes.
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

    /// The generation stored for entries that the ledger cannot vouch for: no row has it.
    static let unverifiable: Int64 = -1

    static let digestLength = 12
    static let entryLength = 24
    static let slotsLength = 256 * digestLength

    /// The prefixes of the root, node and leaf above `uuid`.
    struct Path: Equatable {
        let node: Data
        let leaf: Data

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
        guard let body, !body.isEmpty else { return Data(count: Self.digestLength) }
        var message = Data(prefix.count == 2 ? "ledger leaf v1\u{0}".utf8 : "ledger node v1\u{0}".utf8)
        message.append(UInt8(prefix.count))
        message.append(prefix)
        message.append(body)
        return try key.authenticationCode(for: message).prefix(Self.digestLength)
    }

    /// The slot for the child at `index` in a root or node body.
    static func slot(_ body: Data?, _ index: UInt8) -> Data {
        guard let body, body.count == slotsLength else { return Data(count: digestLength) }
        let start = body.startIndex + Int(index) * digestLength
        return Data(body[start..<(start + digestLength)])
    }

    /// Whether a root or node body's slot for child `index` holds `digest`.
    static func slot(_ body: Data?, _ index: UInt8, holds digest: Data) -> Bool {
        ConstantTime.equal(slot(body, index), digest)
    }

    /// `body` with the slot for child `index` set to `digest`; nil when every slot is then zero.
    static func setting(_ body: Data?, _ index: UInt8, to digest: Data) -> Data? {
        var slots = body.flatMap { $0.count == slotsLength ? Data($0) : nil } ?? Data(count: slotsLength)
        let start = Int(index) * digestLength
        slots.replaceSubrange(start..<(start + digestLength), with: digest)
        return slots.allSatisfy({ $0 == 0 }) ? nil : slots
    }

    // MARK: - Leaves

    /// The generation a leaf body records for `uuid`, if any.
    static func generation(of uuid: Data, in leaf: Data?) -> Int64? {
        guard let leaf, leaf.count % entryLength == 0 else { return nil }
        return leaf.withUnsafeBytes { bytes -> Int64? in
            var low = 0
            var high = leaf.count / entryLength
            while low < high {
                let middle = (low + high) / 2
                let entry = UnsafeRawBufferPointer(rebasing: bytes[(middle * entryLength)..<(middle * entryLength + 16)])
                let order = compare(entry, uuid)
                if order == 0 {
                    return (0..<8).reduce(Int64(0)) { value, offset in
                        value << 8 | Int64(bytes[middle * entryLength + 16 + offset])
                    }
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
            var offset = leaf.startIndex
            while offset < leaf.endIndex {
                let entryUUID = Data(leaf[offset..<(offset + 16)])
                let value = leaf[(offset + 16)..<(offset + entryLength)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
                entries.append((entryUUID, value))
                offset += entryLength
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

    private static func compare(_ left: UnsafeRawBufferPointer, _ right: Data) -> Int {
        right.withUnsafeBytes { right in
            for index in 0..<min(left.count, right.count) where left[index] != right[index] {
                return left[index] < right[index] ? -1 : 1
            }
            return left.count - right.count
        }
    }

    // MARK: - Checking an item

    /// Whether the ledger, as `evidence` shows it, names generation `generation` for `uuid`:
    /// the node's digest matches the root's slot, the leaf's the node's, and the leaf's entry
    /// the generation.
    func vouches(for uuid: Data, generation: Int64, evidence: Evidence) throws -> Bool {
        guard uuid.count == 16 else { return false }
        let path = Path(uuid: uuid)
        guard Self.slot(evidence.root, uuid[uuid.startIndex], holds: try digest(prefix: path.node, body: evidence.node)),
            Self.slot(evidence.node, uuid[uuid.startIndex + 1], holds: try digest(prefix: path.leaf, body: evidence.leaf))
        else { return false }
        return Self.generation(of: uuid, in: evidence.leaf) == generation
    }
}
