import Foundation

/// The rollback ledger as schema 4 kept it (leaves keyed by UUID prefix listing
/// `UUID ‖ generation`, an unauthenticated root), read once when such a keychain is upgraded: a
/// row that ledger did not vouch for (rolled back, altered) enters the new ledger unverifiable,
/// so the upgrade blesses nothing that was already refused.
struct LegacyRollbackLedger {
    let key: SymmetricKey

    private static let leafLabel = Array("ledger leaf v1\u{0}".utf8)
    private static let nodeLabel = Array("ledger node v1\u{0}".utf8)
    private static let leafEntryLength = 24

    /// Whether the schema-4 ledger, given the root, node and leaf bodies above `uuid`, named
    /// `generation` for it.
    func vouched(for uuid: Data, generation: Int64, root: Data?, node: Data?, leaf: Data?) throws -> Bool {
        guard uuid.count == 16 else { return false }
        let start = uuid.startIndex
        let nodeDigest = try digest(prefix: Data(uuid.prefix(1)), body: node)
        let leafDigest = try digest(prefix: Data(uuid.prefix(2)), body: leaf)
        guard RollbackLedger.slot(root, uuid[start], holds: nodeDigest), RollbackLedger.slot(node, uuid[start + 1], holds: leafDigest),
            let leaf, leaf.count % Self.leafEntryLength == 0
        else { return false }
        for offset in stride(from: leaf.startIndex, to: leaf.endIndex, by: Self.leafEntryLength)
        where leaf[offset..<(offset + 16)].elementsEqual(uuid) {
            let stored = (0..<8).reduce(Int64(0)) { $0 << 8 | Int64(leaf[offset + 16 + $1]) }
            return stored == generation
        }
        return false
    }

    /// The row ids of the root, node and leaf above `uuid` in the schema-4 layout.
    static func rowIDs(for uuid: Data) -> (root: Int64, node: Int64, leaf: Int64) {
        (0, RollbackLedger.rowID(Data(uuid.prefix(1))), RollbackLedger.rowID(Data(uuid.prefix(2))))
    }

    /// A schema-4 digest: HMAC-SHA256 under the ledger key over the level label, the prefix and the body.
    func digest(prefix: Data, body: Data?) throws -> Data {
        guard let body, !body.isEmpty else { return Data(count: RollbackLedger.digestLength) }
        var message = prefix.count == 2 ? Self.leafLabel : Self.nodeLabel
        message.append(UInt8(prefix.count))
        message.append(contentsOf: prefix)
        message.append(contentsOf: body)
        return try key.authenticationCode(for: message).prefix(RollbackLedger.digestLength)
    }
}
