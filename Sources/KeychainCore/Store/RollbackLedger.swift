import Foundation
import KeychainCrypto
import Synchronization

/// The keychain's authenticated record of which items exist and of each one's current
/// generation, kept in the database under a key of the keybag, so that a row put back to an
/// older version of itself, a removed row, or a removed registry entry is recognised as damage
/// rather than taken as the truth (docs/reliability.md §4, "Rollback and removal").
///
/// Every write gives the item's row a new generation (1 for an add, one more for each update),
/// bound into the associated data of both its sealed parts. An older version of the row is still
/// authentic on its own; what gives it away is this ledger, which names the newer generation.
///
/// The ledger is a tree of three levels in the `ledger` table, keyed by a prefix of the item's
/// primary-key token (keyed and random-looking, so items spread evenly; `rowID` numbers the
/// rows). Being keyed by the token, it answers for items that are *not* there too: a lookup by
/// primary key that finds no row checks that the ledger names no item with that token.
/// - a **leaf** per two-byte prefix lists `token[0..<16] ‖ UUID ‖ class ‖ generation` (41
///   bytes) of its items, in token order (about 15 entries per leaf at a million items);
/// - a **node** per one-byte prefix holds the digests of its (up to 256) leaves;
/// - the **root** holds the digests of the (up to 256) nodes, the number of items of each class
///   (so a search that reads a whole class notices a removed row), whether synchronizable items
///   may exist (so lookups know whether to try their token), and a digest of the access-group
///   registry (so a removed registry entry is noticed), followed by a MAC over all of it.
///
/// Root and node bodies list only their children that exist (`index ‖ digest`), so a small
/// keychain's ledger is a few pages; a full root is 3.4 KiB.
///
/// A digest is the first 12 bytes of HMAC-SHA256 under the ledger key over a level label, the
/// prefix and the body; an absent body (no item below it) has the all-zero digest and no row.
/// Checking an item reads its leaf, its node and the root (one statement), checks the root's MAC
/// (once per root version: `RootCache`), compares two digests and finds the entry; a write
/// changes one entry, two slots and the root (three rows, O(1) in the number of items).
///
/// What it cannot see: putting back an older copy of the whole ledger together with older rows
/// is a rollback of the whole keychain, which no file on the same disk can reveal (a TPM's
/// monotonic counter could); it shows only where items changed since that copy was taken. A
/// row removed and another of the same class put back from an earlier copy keeps a class's
/// count, so a search that reads the class notices only the put-back row (refused as not
/// current); a lookup by primary key or reference still notices both. A persistent reference
/// to a removed row finds nothing: references name the UUID, which the ledger is not keyed by.
///
/// A damaged ledger (a root whose MAC fails, a node or leaf whose digest does not match the
/// level above) cannot vouch for the items below it: reads of them, and lookups of absent items
/// there, fail (`errSecDecode`), and the first write below it rebuilds that part from the rows
/// with every entry marked unverifiable, so those items stay unreadable (and can be deleted)
/// while new items there work, and nothing damaged is blessed.
struct RollbackLedger: Sendable {
    /// The ledger key (derived from the keybag's index key, available whenever the keychain is).
    let key: SymmetricKey
    /// The last node body hashed under each one-byte prefix, with its digest: a node is hashed
    /// again only when it changed (a node is up to 3.3 KiB; a leaf a few entries).
    private let nodeDigests = NodeDigests()
    /// The last root body whose MAC verified, with what it holds.
    private let rootCache = RootCache()

    init(key: SymmetricKey) {
        self.key = key
    }

    /// The generation stored for entries that the ledger cannot vouch for: no row has it.
    static let unverifiable: Int64 = -1

    /// The bytes of a digest kept in a slot (a truncated HMAC-SHA256).
    static let digestLength = 12
    /// The bytes of the token a leaf entry keeps (its first 16: a collision is 2^-128 likely).
    static let tokenLength = 16
    /// The bytes of a leaf entry: token, UUID, class, big-endian generation.
    static let entryLength = tokenLength + 16 + 1 + 8
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

    /// The ledger row ids of the node and the leaf above a primary-key token (as `Path.rowIDs`,
    /// without making the prefixes); nil for a token too short to have a path (a damaged row).
    static func rowIDs(above token: Data) -> (node: Int64, leaf: Int64)? {
        guard token.count >= tokenLength else { return nil }
        let first = Int64(token[token.startIndex])
        let second = Int64(token[token.startIndex + 1])
        return (firstNodeID + first, firstLeafID + first * 256 + second)
    }

    /// The row id of the node for prefix 0x00.
    static let firstNodeID: Int64 = 1
    /// The row id of the leaf for prefix 0x0000.
    static let firstLeafID: Int64 = 257

    /// The prefixes of the node and leaf above a primary-key token.
    struct Path: Equatable {
        /// The node's prefix: the token's first byte.
        let node: Data
        /// The leaf's prefix: the token's first two bytes.
        let leaf: Data

        /// The path above `token`; nil for a token too short to have one (a damaged row).
        init?(token: Data) {
            guard token.count >= RollbackLedger.tokenLength else { return nil }
            node = Data(token.prefix(1))
            leaf = Data(token.prefix(2))
        }

        /// The ledger row ids of the node and the leaf.
        var rowIDs: (node: Int64, leaf: Int64) { (RollbackLedger.rowID(node), RollbackLedger.rowID(leaf)) }
    }

    /// One item as a leaf lists it.
    struct Entry: Equatable {
        /// The first `tokenLength` bytes of the item's primary-key token.
        var token: Data
        var uuid: Data
        /// The item's class (`ItemClass.ledgerCode`).
        var itemClass: UInt8
        var generation: Int64
    }

    /// What the ledger says about a primary-key token.
    enum Standing: Equatable {
        /// The path to its leaf does not verify: the ledger cannot say.
        case unvouched
        /// No item has the token.
        case absent
        /// The item with the token.
        case entry(Entry)
    }

    // MARK: - Digests

    /// The digest of a leaf or node body at `prefix` (its length gives the level); all zeros for
    /// no body.
    func digest(prefix: Data, body: Data?) throws -> Data {
        try body.withUnsafeBytesOrNil { try digest(prefix: prefix, body: $0) }
    }

    /// `digest` of a lent body. A node's digest is taken from the last one computed for that
    /// prefix when the body is the same.
    func digest(prefix: Data, body: UnsafeRawBufferPointer?) throws -> Data {
        let start = prefix.startIndex
        if prefix.count == 1 { return try nodeDigest(index: prefix[start], body: body) }
        precondition(prefix.count == 2, "a ledger digest is of a node or a leaf")
        return try withDigest(prefix[start], prefix[start + 1], count: 2, body: body) { Data($0) }
    }

    /// The digest of the node body at one-byte prefix `index`: the last one computed there when
    /// the body is the same, else computed and remembered.
    private func nodeDigest(index: UInt8, body: UnsafeRawBufferPointer?) throws -> Data {
        guard let body, !body.isEmpty else { return Data(count: Self.digestLength) }
        if let known = nodeDigests.digest(of: body, at: index) { return known }
        let digest = try withDigest(index, 0, count: 1, body: body) { Data($0) }
        nodeDigests.remember(digest, of: Data(body), at: index)
        return digest
    }

    /// Runs `use` on the digest (lent, `digestLength` bytes) of `body` at the prefix made of the
    /// first `count` (1: a node, 2: a leaf) of `first`, `second`: HMAC-SHA256 under the ledger
    /// key of `level label ‖ count ‖ prefix ‖ body`, computed on the stack, with no copy of the
    /// body; all zeros for no body.
    private func withDigest<T>(
        _ first: UInt8, _ second: UInt8, count: Int, body: UnsafeRawBufferPointer?, _ use: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        guard let body, !body.isEmpty else { return try use(Self.zeroSlot) }
        let label = count == 2 ? Self.leafLabel : Self.nodeLabel
        return try withUnsafeTemporaryAllocation(byteCount: label.count + 3 + 32, alignment: 8) { buffer in
            label.withUnsafeBytes { buffer.copyMemory(from: $0) }
            buffer[label.count] = UInt8(count)
            buffer[label.count + 1] = first
            buffer[label.count + 2] = second
            let head = UnsafeRawBufferPointer(rebasing: buffer[0..<(label.count + 1 + count)])
            let out = UnsafeMutableRawBufferPointer(rebasing: buffer[(label.count + 3)...])
            try key.authenticate(head, body, into: out)
            defer { out.initializeMemory(as: UInt8.self, repeating: 0) }
            return try use(UnsafeRawBufferPointer(rebasing: out[0..<Self.digestLength]))
        }
    }

    private static let leafLabel = Array("ledger leaf v2\u{0}".utf8)
    private static let nodeLabel = Array("ledger node v2\u{0}".utf8)

    // MARK: - The root

    /// The root as read from the database (lent; nil when no row exists: an empty ledger).
    ///
    /// - Returns: nil when the root was altered (its MAC fails) or is malformed.
    func root(_ body: UnsafeRawBufferPointer?) throws -> LedgerRoot? {
        guard let body else { return LedgerRoot() }
        if let known = rootCache.root(for: body) { return known }
        guard let root = try LedgerRoot(verifying: body, key: key) else { return nil }
        rootCache.remember(root, body: Data(body))
        return root
    }

    /// `root(_:)` of a copied body.
    func root(_ body: Data?) throws -> LedgerRoot? {
        try body.withUnsafeBytesOrNil { try root($0) }
    }

    /// The root's stored form, remembered as verified (the writer reads it back next).
    func encode(_ root: LedgerRoot) throws -> Data? {
        guard let body = try root.encoded(key: key) else { return nil }
        rootCache.remember(root, body: body)
        return body
    }

    // MARK: - Slots (root and node bodies)

    /// Twelve zero bytes, allocated once for the life of the process.
    nonisolated(unsafe) private static let zeroSlot: UnsafeRawBufferPointer = {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: digestLength, alignment: 1)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        return UnsafeRawBufferPointer(bytes)
    }()

    /// The slot's bytes, lent from `slots` (or the zero slot).
    static func slot(in slots: UnsafeRawBufferPointer?, _ index: UInt8) -> UnsafeRawBufferPointer {
        guard let slots, slots.count % slotLength == 0 else { return zeroSlot }
        var low = 0
        var high = slots.count / slotLength
        while low < high {
            let middle = (low + high) / 2
            let start = middle * slotLength
            let found = slots[start]
            if found == index { return UnsafeRawBufferPointer(rebasing: slots[(start + 1)..<(start + slotLength)]) }
            if found < index { low = middle + 1 } else { high = middle }
        }
        return zeroSlot
    }

    /// Whether a slot list's slot for child `index` holds `digest`.
    static func slot(_ slots: Data?, _ index: UInt8, holds digest: Data) -> Bool {
        slots.withUnsafeBytesOrNil { slots in
            digest.withUnsafeBytes { OpenSSL.constantTimeEqual(slot(in: slots, index), $0) }
        }
    }

    /// `slots` with the slot for child `index` set to `digest`; nil when every slot is then zero.
    static func setting(_ slots: Data?, _ index: UInt8, to digest: Data) -> Data? {
        setting(slots, [(index, digest)])
    }

    /// `slots` with the slot for each child set to its digest, in the order given (one copy of
    /// the slots for all of them); nil when every slot is then zero.
    static func setting(_ slots: Data?, _ digests: [(index: UInt8, digest: Data)]) -> Data? {
        var bytes = slots.flatMap { $0.count % slotLength == 0 ? [UInt8]($0) : nil } ?? []
        for (index, digest) in digests { set(&bytes, index, to: digest) }
        return bytes.isEmpty ? nil : Data(bytes)
    }

    /// Sets the slot for child `index` in a slot list to `digest` (removing it for a zero digest).
    private static func set(_ bytes: inout [UInt8], _ index: UInt8, to digest: Data) {
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
    }

    // MARK: - Leaves

    /// The entry a leaf body lists for `token`, if any.
    static func entry(for token: Data, in leaf: UnsafeRawBufferPointer?) -> Entry? {
        guard let leaf else { return nil }
        return entryBytes(for: token, in: leaf).map(decodeEntry)
    }

    /// Every entry of a leaf body.
    static func entries(of leaf: Data?) -> [Entry] {
        guard let leaf, leaf.count % entryLength == 0 else { return [] }
        return leaf.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count, by: entryLength).map {
                decodeEntry(UnsafeRawBufferPointer(rebasing: bytes[$0..<($0 + entryLength)]))
            }
        }
    }

    private static func decodeEntry(_ bytes: UnsafeRawBufferPointer) -> Entry {
        let generation = (0..<8).reduce(Int64(0)) { $0 << 8 | Int64(bytes[tokenLength + 17 + $1]) }
        return Entry(
            token: Data(bytes[0..<tokenLength]), uuid: Data(bytes[tokenLength..<(tokenLength + 16)]),
            itemClass: bytes[tokenLength + 16], generation: generation)
    }

    /// `leaf` with the entry for `token` removed and `entry` (if any) added, in token order; nil
    /// when no entry is left.
    static func setting(_ leaf: Data?, removing token: Data, adding entry: Entry?) -> Data? {
        var entries = entries(of: leaf)
        let removed = token.prefix(tokenLength)
        entries.removeAll { $0.token == removed }
        if let entry { entries.append(entry) }
        guard !entries.isEmpty else { return nil }
        return encode(entries)
    }

    /// A leaf body from entries in any order.
    static func encode(_ entries: [Entry]) -> Data {
        var body = Data(capacity: entries.count * entryLength)
        for entry in entries.sorted(by: { $0.token.lexicographicallyPrecedes($1.token) }) {
            body.append(entry.token.prefix(tokenLength))
            body.append(entry.uuid)
            body.append(entry.itemClass)
            withUnsafeBytes(of: entry.generation.bigEndian) { body.append(contentsOf: $0) }
        }
        return body
    }

    // MARK: - Standing of a token

    /// What the ledger, with the root, node and leaf bodies above `token` as read from the
    /// database (lent; nil where no row exists), says about the item with that token: the root
    /// must authenticate, the node's digest match the root's slot and the leaf's the node's.
    func standing(
        of token: Data, root rootBody: UnsafeRawBufferPointer?, node: UnsafeRawBufferPointer?, leaf: UnsafeRawBufferPointer?
    ) throws -> Standing {
        try standing(of: token, root: try root(rootBody), node: node, leaf: leaf)
    }

    /// `standing`, given the root already read and verified (nil: it did not verify).
    func standing(
        of token: Data, root: LedgerRoot?, node: UnsafeRawBufferPointer?, leaf: UnsafeRawBufferPointer?
    ) throws -> Standing {
        guard token.count >= Self.tokenLength, let root, try linked(token, root, node, leaf) else { return .unvouched }
        return Self.entry(for: token, in: leaf).map(Standing.entry) ?? .absent
    }

    /// Whether the ledger names `row` (its UUID, class and generation) for the row's token. The
    /// entry is compared where the leaf lends it (a scan asks this of every row it keeps).
    func vouches(
        for row: StoredRow, root rootBody: UnsafeRawBufferPointer?, node: UnsafeRawBufferPointer?,
        leaf: UnsafeRawBufferPointer?
    ) throws -> Bool {
        try vouches(for: row, verifiedRoot: try root(rootBody), node: node, leaf: leaf)
    }

    /// `vouches`, given the root already read and verified (nil: it did not verify).
    func vouches(
        for row: StoredRow, verifiedRoot: LedgerRoot?, node: UnsafeRawBufferPointer?, leaf: UnsafeRawBufferPointer?
    ) throws -> Bool {
        let token = row.primaryKeyToken
        guard token.count >= Self.tokenLength, let root = verifiedRoot, try linked(token, root, node, leaf),
            let leaf, let entry = Self.entryBytes(for: token, in: leaf)
        else { return false }
        guard row.uuid.count == 16, entry[Self.tokenLength + 16] == row.itemClass.ledgerCode else { return false }
        let generation = (0..<8).reduce(Int64(0)) { $0 << 8 | Int64(entry[Self.tokenLength + 17 + $1]) }
        guard generation == row.generation else { return false }
        return row.uuid.withUnsafeBytes { uuid in
            memcmp(entry.baseAddress! + Self.tokenLength, uuid.baseAddress!, 16) == 0
        }
    }

    /// Whether the node and leaf above `token` (at least `tokenLength` bytes) hang from `root`:
    /// each one's digest is in its parent's slot.
    private func linked(
        _ token: Data, _ root: LedgerRoot, _ node: UnsafeRawBufferPointer?, _ leaf: UnsafeRawBufferPointer?
    ) throws -> Bool {
        let first = token[token.startIndex]
        let second = token[token.startIndex + 1]
        let nodeDigest = try nodeDigest(index: first, body: node)
        let nodeLinked = root.slots.withUnsafeBytesOrNil { rootSlots in
            nodeDigest.withUnsafeBytes { OpenSSL.constantTimeEqual(Self.slot(in: rootSlots, first), $0) }
        }
        let leafLinked = try withDigest(first, second, count: 2, body: leaf) {
            OpenSSL.constantTimeEqual(Self.slot(in: node, second), $0)
        }
        return nodeLinked && leafLinked
    }

    /// The bytes of the entry a leaf body lists for `token` (lent from `leaf`), if any.
    static func entryBytes(for token: Data, in leaf: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard leaf.count % entryLength == 0, token.count >= tokenLength else { return nil }
        return token.withUnsafeBytes { token -> UnsafeRawBufferPointer? in
            var low = 0
            var high = leaf.count / entryLength
            while low < high {
                let middle = (low + high) / 2
                let start = middle * entryLength
                let order = memcmp(leaf.baseAddress! + start, token.baseAddress!, tokenLength)
                if order == 0 { return UnsafeRawBufferPointer(rebasing: leaf[start..<(start + entryLength)]) }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
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

/// The root body whose MAC last verified, with what it holds: the root changes with every write,
/// so a reader verifies each version once. Whether a body verifies depends on nothing but the
/// body (and the key), so a remembered one is right whatever happens to its transaction.
private final class RootCache: Sendable {
    private let last = Mutex<(body: Data, root: LedgerRoot)?>(nil)

    func root(for body: UnsafeRawBufferPointer) -> LedgerRoot? {
        last.withLock { last in
            guard let last, last.body.count == body.count, !body.isEmpty else { return nil }
            let same = last.body.withUnsafeBytes { memcmp($0.baseAddress!, body.baseAddress!, body.count) == 0 }
            return same ? last.root : nil
        }
    }

    func remember(_ root: LedgerRoot, body: Data) {
        last.withLock { $0 = (body, root) }
    }
}
