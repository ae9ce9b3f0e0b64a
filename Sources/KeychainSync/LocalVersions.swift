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
/// Kept in the sync state (inside the keychain's own encryption), as one base64 string of
/// fixed-size entries (UUID, 16 bytes; row number and generation, 8 bytes each little-endian; a flag, then the
/// primary-key and content digests, 32 bytes each, zero for a row that is not a synchronizable
/// item).
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

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.rowID == rhs.rowID && lhs.generation == rhs.generation && lhs.item?.primaryKey == rhs.item?.primaryKey && lhs.item?.content == rhs.item?.content
        }
    }

    /// By row UUID.
    var entries: [Data: Entry] = [:]

    init() {}

    private static let entryLength = 16 + 8 + 8 + 1 + 32 + 32

    /// Whether `version` is the row as seen.
    func isSeen(_ version: ItemVersion, as entry: Entry) -> Bool {
        entry.rowID == version.rowID && entry.generation == version.generation
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let data = Data(base64Encoded: try container.decode(String.self)), data.count % Self.entryLength == 0 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "the local versions are malformed")
        }
        let bytes = [UInt8](data)
        entries.reserveCapacity(bytes.count / Self.entryLength)
        var offset = 0
        while offset < bytes.count {
            let uuid = Data(bytes[offset..<offset + 16])
            let rowID = bytes[offset + 16..<offset + 24].withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
            let generation = bytes[offset + 24..<offset + 32].withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
            var entry = Entry(rowID: rowID, generation: generation)
            if bytes[offset + 32] == 1 {
                entry.item = (SyncCrypto.hex(bytes[offset + 33..<offset + 65]), SyncCrypto.hex(bytes[offset + 65..<offset + 97]))
            }
            entries[uuid] = entry
            offset += Self.entryLength
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
        }
        var container = encoder.singleValueContainer()
        try container.encode(Data(bytes).base64EncodedString())
    }
}
