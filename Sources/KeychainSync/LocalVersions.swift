import Foundation
import KeychainCore

/// What this device last saw of each local row of the synced classes, by the row's UUID: the
/// row number and generation it saw and, for a synchronizable item, the item's primary-key and
/// content digests then. A row's generation changes at every write of its item (the rollback
/// ledger refuses a row at any other generation), and a restored item is a new row, so a row
/// whose UUID, number and generation are those kept here holds the item kept here: an exchange
/// opens only the rows whose version moved and the rows it has not seen, and learns of deletions
/// from the UUIDs that are gone.
///
/// Each entry also keeps the row's primary-key token, so that a row gone since can be told apart:
/// deleted through the keychain (its item left the rollback ledger with it) or removed behind the
/// keychain's back (the ledger still names it: damage, never uploaded as a deletion).
///
/// Kept in the sync state (inside the keychain's own encryption), as `2:` and one base64 string
/// of fixed-size entries (UUID, 16 bytes; row number and generation, 8 bytes each little-endian;
/// a flag, then the primary-key and content digests, 32 bytes each, zero for a row that is not a
/// synchronizable item; the token, 32 bytes, zero when not known). The earlier form, without the
/// prefix and the token, is still read (its entries have no token).
struct LocalVersions: Codable, Equatable {
    /// One row as last seen.
    struct Entry: Equatable {
        /// The row's number when seen.
        var rowID: Int64
        /// The row's generation when seen.
        var generation: Int64
        /// The digests of the synchronizable item it held then; nil for a local (not
        /// synchronizable) item.
        var item: (primaryKey: String, content: String)?
        /// The row's primary-key token; nil when read from the earlier form, which did not keep it.
        var token: Data?

        /// The row as `version` shows it, holding `item`.
        init(_ version: ItemVersion, item: (primaryKey: String, content: String)?) {
            self.init(rowID: version.rowID, generation: version.generation, item: item, token: version.token)
        }

        init(rowID: Int64, generation: Int64, item: (primaryKey: String, content: String)? = nil, token: Data?) {
            self.rowID = rowID
            self.generation = generation
            self.item = item
            self.token = token
        }

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.rowID == rhs.rowID && lhs.generation == rhs.generation && lhs.item?.primaryKey == rhs.item?.primaryKey
                && lhs.item?.content == rhs.item?.content && lhs.token == rhs.token
        }
    }

    /// By row UUID.
    var entries: [Data: Entry] = [:]

    init() {}

    /// The bytes of an entry in the earlier form (no token).
    private static let earlierEntryLength = 16 + 8 + 8 + 1 + 32 + 32
    /// The bytes of an entry: the earlier form's, then the token.
    private static let entryLength = earlierEntryLength + tokenLength
    private static let tokenLength = 32
    /// What the current form starts with (base64 never holds a colon).
    private static let formPrefix = "2:"

    /// Whether `version` is the row as seen.
    func isSeen(_ version: ItemVersion, as entry: Entry) -> Bool {
        entry.rowID == version.rowID && entry.generation == version.generation
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        var text = try container.decode(String.self)
        let current = text.hasPrefix(Self.formPrefix)
        if current { text.removeFirst(Self.formPrefix.count) }
        let length = current ? Self.entryLength : Self.earlierEntryLength
        guard let data = Data(base64Encoded: text), data.count % length == 0 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "the local versions are malformed")
        }
        let bytes = [UInt8](data)
        entries.reserveCapacity(bytes.count / length)
        var offset = 0
        while offset < bytes.count {
            let uuid = Data(bytes[offset..<offset + 16])
            let rowID = bytes[offset + 16..<offset + 24].withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
            let generation = bytes[offset + 24..<offset + 32].withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
            let stored = bytes[offset + Self.earlierEntryLength..<offset + (current ? Self.entryLength : Self.earlierEntryLength)]
            let token = stored.contains(where: { $0 != 0 }) ? Data(stored) : nil
            var entry = Entry(rowID: rowID, generation: generation, token: token)
            if bytes[offset + 32] == 1 {
                entry.item = (SyncCrypto.hex(bytes[offset + 33..<offset + 65]), SyncCrypto.hex(bytes[offset + 65..<offset + 97]))
            }
            entries[uuid] = entry
            offset += length
        }
    }

    func encode(to encoder: any Encoder) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * Self.entryLength)
        for (uuid, entry) in entries {
            guard uuid.count == 16 else { continue }
            let start = bytes.count
            bytes.append(contentsOf: uuid)
            withUnsafeBytes(of: entry.rowID.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: entry.generation.littleEndian) { bytes.append(contentsOf: $0) }
            if let item = entry.item {
                bytes.append(1)
                // A synchronizable item whose digests do not fit is not kept: it is opened again.
                guard SyncCrypto.appendBytes(hex: item.primaryKey, count: 32, to: &bytes),
                    SyncCrypto.appendBytes(hex: item.content, count: 32, to: &bytes)
                else {
                    bytes.removeSubrange(start...)
                    continue
                }
            } else {
                bytes.append(0)
                bytes.append(contentsOf: repeatElement(0, count: 64))
            }
            // No token (an earlier release's entry) is written as zeros, and read back as none.
            if let token = entry.token, token.count == Self.tokenLength {
                bytes.append(contentsOf: token)
            } else {
                bytes.append(contentsOf: repeatElement(0, count: Self.tokenLength))
            }
        }
        var container = encoder.singleValueContainer()
        try container.encode(Self.formPrefix + Data(bytes).base64EncodedString())
    }
}
