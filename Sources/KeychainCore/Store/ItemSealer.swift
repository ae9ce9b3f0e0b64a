import Foundation

/// Seals and opens item records with AES-256-GCM, binding each ciphertext to the item's identity.
///
/// - Metadata (all attributes) is sealed under the keychain's metadata key, with the class, the
///   item's UUID and its primary-key token as associated data: a record moved to another row, or
///   given another row's token, fails to open.
/// - The secret is sealed under a fresh per-item key; that key is wrapped by the item-key wrapping
///   key. Both bind the class and the UUID.
/// - Primary-key tokens are HMAC-SHA256 over the class and the primary-key values under the token
///   key: equal keys give equal tokens (so a unique index enforces uniqueness), yet the file holding
///   them reveals neither values nor, since primary keys are unique, which items share a value.
struct ItemSealer: Sendable {
    let keys: KeychainKeys

    private static let secretFormat: UInt8 = 1

    /// The token of `itemClass`'s primary key with `attributes` (omitted members take their empty values).
    func primaryKeyToken(itemClass: ItemClass, attributes: [String: AttributeValue]) throws -> Data {
        let encoding = PrimaryKeyEncoding(itemClass: itemClass, attributes: attributes)
        return try keys.tokens.authenticationCode(
            for: encoding.message(
                accessGroup: attributes["agrp"]?.stringValue ?? "", synchronizable: attributes["sync"]?.integerValue == 1))
    }

    /// The token naming an access group in the group table.
    func accessGroupToken(_ group: String) throws -> Data {
        try keys.tokens.authenticationCode(for: Data("agrp\u{0}\(group)".utf8))
    }

    /// Seals an access-group name for the group table.
    func sealAccessGroup(_ group: String, token: Data) throws -> Data {
        try keys.metadata.seal(Data(group.utf8), aad: Data("agrp-name v1".utf8) + token)
    }

    /// Opens an access-group name from the group table.
    func openAccessGroup(_ sealed: Data, token: Data) throws -> String {
        let bytes = try keys.metadata.open(sealed, aad: Data("agrp-name v1".utf8) + token)
        return bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Seals a record's attributes.
    func sealMetadata(_ record: ItemRecord, token: Data) throws -> Data {
        var attributes = record.attributes
        if let policy = record.accessControl { attributes["accc"] = .data(policy.serialized) }
        var plaintext = RecordCodec.encode(attributes)
        defer { plaintext.wipe() }
        return try keys.metadata.seal(plaintext, aad: metadataAAD(record.itemClass, record.uuid, token))
    }

    /// Opens a row's attributes into a record; throws `errSecDecode` if the row was altered.
    func openRecord(_ row: StoredRow) throws -> ItemRecord {
        let plaintext = try keys.metadata.open(row.metadata, aad: metadataAAD(row.itemClass, row.uuid, row.primaryKeyToken))
        var attributes = try plaintext.withUnsafeBytes { try RecordCodec.decode($0) }
        var accessControl: AccessControlPolicy?
        if case .data(let serialized)? = attributes.removeValue(forKey: "accc") {
            accessControl = try AccessControlPolicy(serialized: serialized)
        }
        return ItemRecord(
            rowID: row.rowID, itemClass: row.itemClass, uuid: row.uuid, attributes: attributes,
            accessControl: accessControl)
    }

    /// Seals a secret under a fresh per-item key: `format ‖ wrapped key ‖ sealed secret`.
    func sealSecret(_ secret: Data, itemClass: ItemClass, uuid: Data) throws -> Data {
        let itemKey = try SymmetricKey.random()
        let aad = secretAAD(itemClass, uuid)
        let wrapped = try itemKey.bytes.withUnsafeBytes { keyBytes in
            try keys.itemKeyWrapping.seal(keyBytes, aad: Data("item-key v1".utf8) + aad)
        }
        let sealed = try itemKey.seal(secret, aad: aad)
        return Data([Self.secretFormat]) + wrapped + sealed
    }

    /// Opens a sealed secret; throws `errSecDecode` if it was altered or belongs to another item.
    func openSecret(_ blob: Data, itemClass: ItemClass, uuid: Data) throws -> Data {
        let wrappedLength = OpenSSL.gcmNonceLength + SymmetricKey.byteCount + OpenSSL.gcmTagLength
        guard blob.count >= 1 + wrappedLength, blob.first == Self.secretFormat else {
            throw KeychainError(.decode, "stored secret is malformed")
        }
        let start = blob.startIndex + 1
        let wrapped = blob[start..<(start + wrappedLength)]
        let aad = secretAAD(itemClass, uuid)
        let itemKey = try SymmetricKey(keys.itemKeyWrapping.open(Data(wrapped), aad: Data("item-key v1".utf8) + aad))
        let secret = try itemKey.open(Data(blob[(start + wrappedLength)...]), aad: aad)
        return secret.withUnsafeBytes { Data($0) }
    }

    private func metadataAAD(_ itemClass: ItemClass, _ uuid: Data, _ token: Data) -> Data {
        Data("metadata v1\u{0}\(itemClass.rawValue)".utf8) + uuid + token
    }

    private func secretAAD(_ itemClass: ItemClass, _ uuid: Data) -> Data {
        Data("secret v1\u{0}\(itemClass.rawValue)".utf8) + uuid
    }
}
