import Foundation
import KeychainCrypto

/// Opens version-1 rows (the project's first storage format): metadata sealed under the single
/// metadata key with the class, UUID and token as associated data; secrets under per-item keys
/// wrapped by the single item-key wrapping key. Used only by `KeychainMigration`.
struct LegacyItemSealer: Sendable {
    let keys: LegacyKeychainKeys

    private static let secretFormat: UInt8 = 1

    /// Opens an access-group name from the version-1 group table.
    func openAccessGroup(_ sealed: Data, token: Data) throws -> String {
        let bytes = try keys.metadata.open(sealed, aad: Data("agrp-name v1".utf8) + token)
        return bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Opens a version-1 row's attributes.
    func openRecord(_ row: StoredRow) throws -> ItemRecord {
        let aad = Data("metadata v1\u{0}\(row.itemClass.rawValue)".utf8) + row.uuid + row.primaryKeyToken
        let plaintext = try keys.metadata.open(row.metadata, aad: aad)
        var attributes = try plaintext.withUnsafeBytes { try RecordCodec.decode($0) }
        var accessControl: AccessControlPolicy?
        if case .data(let serialized)? = attributes.removeValue(forKey: .accessControl) {
            accessControl = try AccessControlPolicy(serialized: serialized)
        }
        return ItemRecord(
            rowID: row.rowID, itemClass: row.itemClass, uuid: row.uuid, attributes: attributes,
            accessControl: accessControl)
    }

    /// Opens a version-1 sealed secret.
    func openSecret(_ blob: Data, itemClass: ItemClass, uuid: Data) throws -> SecureBytes {
        let wrappedLength = AESGCMCipher.nonceLength + SymmetricKey.byteCount + AESGCMCipher.tagLength
        guard blob.count >= 1 + wrappedLength, blob.first == Self.secretFormat else {
            throw KeychainError(.decode, "stored secret is malformed")
        }
        let start = blob.startIndex + 1
        let aad = Data("secret v1\u{0}\(itemClass.rawValue)".utf8) + uuid
        let wrapped = Data(blob[start..<(start + wrappedLength)])
        let itemKey = try SymmetricKey(keys.itemKeyWrapping.open(wrapped, aad: Data("item-key v1".utf8) + aad))
        return try itemKey.open(Data(blob[(start + wrappedLength)...]), aad: aad)
    }
}
