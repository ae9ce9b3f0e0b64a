import Foundation
import KeychainCrypto

/// Seals and opens item records with AES-256-GCM under the keys of the item's protection class,
/// binding each ciphertext to the item's identity.
///
/// - Metadata (all attributes) is sealed under the class's metadata key, with the class, the
///   protection class, the item's UUID and its primary-key token as associated data: a record
///   moved to another row, given another row's token, or relabelled with another protection
///   class fails to open. After opening, the record's `pdmn` must equal the row's class.
/// - The secret is sealed under a fresh per-item key; that key is wrapped by the class's
///   item-key wrapping key. Both bind the class, the protection class and the UUID.
/// - Both parts also bind the row's generation (rows of schema 4 and later), and a row opens only
///   if the rollback ledger names that generation (`StoredRow.isCurrent`): an older version of
///   the row, authentic on its own, is refused like a damaged one.
/// - Primary-key tokens are HMAC-SHA256 over the class and the primary-key values under the index
///   token key, which is always available: equal keys give equal tokens, so a unique index
///   enforces uniqueness even while the keychain is locked, yet the file reveals neither values
///   nor, since primary keys are unique, which items share a value.
struct ItemSealer: Sendable {
    let keyRing: KeyRing

    private static let secretFormat: UInt8 = 2

    /// The token of `itemClass`'s primary key with `attributes` (omitted members take their empty values).
    func primaryKeyToken(itemClass: ItemClass, attributes: ItemAttributes) throws -> Data {
        let encoding = PrimaryKeyEncoding(itemClass: itemClass, attributes: attributes)
        return try keyRing.index.tokens.authenticationCode(
            for: encoding.message(
                accessGroup: attributes[.accessGroup]?.stringValue ?? "", synchronizable: attributes[.synchronizable]?.integerValue == 1))
    }

    /// The token naming an access group in the group table.
    func accessGroupToken(_ group: String) throws -> Data {
        try keyRing.index.tokens.authenticationCode(for: Data("agrp\u{0}\(group)".utf8))
    }

    /// Seals an access-group name for the group table.
    func sealAccessGroup(_ group: String, token: Data) throws -> Data {
        try keyRing.index.groupNames.seal(Data(group.utf8), aad: Data("agrp-name v2".utf8) + token)
    }

    /// Opens an access-group name from the group table.
    func openAccessGroup(_ sealed: Data, token: Data) throws -> String {
        let bytes = try keyRing.index.groupNames.open(sealed, aad: Data("agrp-name v2".utf8) + token)
        return bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Seals a record's attributes under its protection class's metadata key.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when that class is locked.
    func sealMetadata(_ record: ItemRecord, token: Data, generation: Int64, random: inout RandomDraw) throws -> Data {
        let keys = try keyRing.classKeys(for: KeybagClass(record.protection))
        var plaintext = RecordCodec.encode(record.attributes, accessControl: record.accessControl?.serialized)
        defer { plaintext.wipe() }
        return try keys.metadata.seal(
            plaintext, aad: metadataAAD(record.itemClass, record.protection.rawValue, record.uuid, token, generation),
            nonce: random.data(count: AESGCMCipher.nonceLength))
    }

    /// Checks that a row's sealed attributes open (they bind the row's class, protection class,
    /// UUID and primary-key token) without decoding them: a lookup that found the row by its
    /// token and returns only its secret needs nothing more from them.
    func authenticate(_ row: StoredRow) -> RowOutcome<Void> {
        openingKeys(row).flatMap { keys in
            _ = try keys.metadata.open(row.metadata, aad: metadataAAD(row))
            return .opened(())
        }
    }

    /// The keys that open `row`: damaged when the row is not current (the ledger names another
    /// generation), has no known protection class, or belongs to a class whose keys are lost.
    private func openingKeys(_ row: StoredRow) -> RowOutcome<ClassKeys> {
        guard row.isCurrent, let protection = row.protection else { return .damaged }
        switch keyRing.availability(of: KeybagClass(protection)) {
        case .available(let keys): return .opened(keys)
        case .locked: return .locked
        case .lost: return .damaged
        }
    }

    /// The keys that open `row`, for a caller that cannot go on without them.
    ///
    /// - Throws: `errSecDecode` when the row is not current (the ledger names another
    ///   generation) or has no known protection class; `errSecInteractionNotAllowed` when its
    ///   class is locked.
    private func classKeys(opening row: StoredRow) throws -> ClassKeys {
        guard row.isCurrent else {
            throw KeychainError(.decode, "the item is not the version the keychain last wrote: it was rolled back or altered")
        }
        guard let protection = row.protection else { throw KeychainError(.decode, "a stored row has no protection class") }
        return try keyRing.classKeys(for: KeybagClass(protection))
    }

    /// Opens a row's attributes into a record; damaged if the row was altered (including its
    /// protection class).
    func open(_ row: StoredRow) -> RowOutcome<ItemRecord> {
        open(row, unless: nil).map { $0! }
    }

    /// `open`, except that `excluded` first sees the decrypted record (`RecordCodec` form) and,
    /// when it returns true, the record is not decoded and the opened value is nil. An
    /// `excluded` that throws (the encoded record is malformed) makes the row damaged.
    func open(_ row: StoredRow, unless excluded: ((UnsafeRawBufferPointer) throws -> Bool)?) -> RowOutcome<ItemRecord?> {
        openingKeys(row).flatMap { keys in
            let plaintext = try keys.metadata.open(row.metadata, aad: metadataAAD(row))
            if let excluded, try plaintext.withUnsafeBytes(excluded) { return .opened(nil) }
            var attributes = try plaintext.withUnsafeBytes { try RecordCodec.decode($0) }
            var accessControl: AccessControlPolicy?
            if case .data(let serialized)? = attributes.removeValue(forKey: .accessControl) {
                accessControl = try AccessControlPolicy(serialized: serialized)
            }
            let record = ItemRecord(
                rowID: row.rowID, itemClass: row.itemClass, uuid: row.uuid, attributes: attributes,
                accessControl: accessControl)
            // The protection class is bound by the associated data and must be the record's.
            guard record.protection == row.protection else { return .damaged }
            return .opened(record)
        }
    }

    /// Seals a secret under a fresh per-item key: `format ‖ wrapped key ‖ sealed secret`.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when `protection`'s class is locked.
    func sealSecret<Secret: ContiguousBytes>(
        _ secret: Secret, itemClass: ItemClass, protection: Protection, uuid: Data, generation: Int64,
        random: inout RandomDraw
    ) throws -> Data {
        let keys = try keyRing.classKeys(for: KeybagClass(protection))
        let itemKey = random.key()
        let aad = secretAAD(itemClass, protection.rawValue, uuid, generation)
        let wrapped = try itemKey.withUnsafeBytes { keyBytes in
            try keys.itemKeyWrapping.seal(keyBytes, aad: Self.itemKeyLabel + aad, nonce: random.data(count: AESGCMCipher.nonceLength))
        }
        let sealed = try SymmetricKey.sealOnce(secret, key: itemKey, aad: aad, nonce: random.data(count: AESGCMCipher.nonceLength))
        var blob = Data(capacity: 1 + wrapped.count + sealed.count)
        blob.append(Self.secretFormat)
        blob.append(wrapped)
        blob.append(sealed)
        return blob
    }

    /// Seals a secret under a fresh per-item key that is wrapped twice: first under a key derived
    /// from the application password (PBKDF2 with a random salt of its own), then under the
    /// class's item-key wrapping key. Without the password the item key cannot be unwrapped, so
    /// no one holding only the keychain's keys can read the secret:
    /// `3 ‖ salt (16) ‖ iterations (u32) ‖ wrapped wrapped key ‖ sealed secret`.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when `protection`'s class is locked.
    func sealSecret<Secret: ContiguousBytes>(
        _ secret: Secret, itemClass: ItemClass, protection: Protection, uuid: Data, generation: Int64,
        password: ApplicationPassword
    ) throws -> Data {
        let keys = try keyRing.classKeys(for: KeybagClass(protection))
        let itemKey = try SecureBytes(copying: SecureRandom.data(count: SymmetricKey.byteCount))
        let salt = try SecureRandom.data(count: Self.passwordSaltLength)
        let passwordKey = try PasscodeKDF.derive(password.password, salt: salt, iterations: password.iterations)
        let aad = secretAAD(itemClass, protection.rawValue, uuid, generation)
        let inner = try itemKey.withUnsafeBytes { keyBytes in
            try SymmetricKey.sealOnce(
                keyBytes, key: passwordKey, aad: Self.passwordLabel + aad, nonce: SecureRandom.data(count: AESGCMCipher.nonceLength))
        }
        let wrapped = try keys.itemKeyWrapping.seal(
            inner, aad: Self.itemKeyLabel + aad, nonce: SecureRandom.data(count: AESGCMCipher.nonceLength))
        let sealed = try SymmetricKey.sealOnce(secret, key: itemKey, aad: aad, nonce: SecureRandom.data(count: AESGCMCipher.nonceLength))
        var blob = Data([Self.passwordSecretFormat])
        blob.append(salt)
        withUnsafeBytes(of: UInt32(password.iterations).bigEndian) { blob.append(contentsOf: $0) }
        blob.append(wrapped)
        blob.append(sealed)
        return blob
    }

    /// Whether `blob` is a secret sealed under an application password.
    static func isPasswordSealed(_ blob: Data) -> Bool { blob.first == passwordSecretFormat }

    /// Opens a secret sealed under an application password (`sealSecret(…password:)`).
    ///
    /// - Returns: the secret; nil when the row or blob is damaged (its class-key layer fails).
    /// - Throws: `.authenticationNeeded` without a password; `errSecAuthFailed` for a wrong one;
    ///   `errSecInteractionNotAllowed` when the class is locked.
    func openPasswordSecret(_ blob: Data, sealedIn row: StoredRow, password: SecureBytes?) throws -> SecureBytes? {
        let header = 1 + Self.passwordSaltLength + 4
        let aad = secretAAD(row.itemClass, row.keyClass, row.uuid, row.generation)
        let inner: SecureBytes
        switch openingKeys(row).flatMap({ keys -> RowOutcome<SecureBytes> in
            guard blob.count >= header + Self.passwordWrappedLength, blob.first == Self.passwordSecretFormat else { return .damaged }
            return .opened(
                try blob.withUnsafeBytes { bytes in
                    try keys.itemKeyWrapping.open(
                        UnsafeRawBufferPointer(rebasing: bytes[header..<(header + Self.passwordWrappedLength)]),
                        aad: Self.itemKeyLabel + aad)
                })
        }) {
        case .opened(let opened): inner = opened
        case .damaged: return nil
        case .locked: throw KeychainError.classLocked
        }
        guard let password else { throw KeychainError(.authenticationNeeded, "the item needs its application password") }
        let start = blob.startIndex
        let salt = Data(blob[(start + 1)..<(start + 1 + Self.passwordSaltLength)])
        let iterations = blob[(start + 1 + Self.passwordSaltLength)..<(start + header)].reduce(0) { $0 << 8 | Int($1) }
        let passwordKey = try PasscodeKDF.derive(password, salt: salt, iterations: iterations)
        let itemKey: SecureBytes
        do {
            itemKey = try inner.withUnsafeBytes { try SymmetricKey.openOnce($0, key: passwordKey, aad: Self.passwordLabel + aad) }
        } catch {
            throw KeychainError(.authFailed, "the application password is not correct")
        }
        do {
            return try blob.withUnsafeBytes { bytes in
                try SymmetricKey.openOnce(
                    UnsafeRawBufferPointer(rebasing: bytes[(header + Self.passwordWrappedLength)...]), key: itemKey, aad: aad)
            }
        } catch {
            return nil
        }
    }

    /// A password-sealed secret without its class-key layer, for a backup: what the application
    /// password alone protects, with the generation its associated data binds:
    /// `generation (8) ‖ salt (16) ‖ iterations (u32) ‖ password-wrapped item key ‖ sealed secret`.
    /// Nothing in it opens without the password, so it leaves the keychain still sealed.
    ///
    /// - Returns: damaged when the class-key layer does not open (the row was altered).
    func portablePasswordSecret(_ blob: Data, sealedIn row: StoredRow) -> RowOutcome<Data> {
        openingKeys(row).flatMap { keys in
            let header = 1 + Self.passwordSaltLength + 4
            guard blob.count >= header + Self.passwordWrappedLength, blob.first == Self.passwordSecretFormat else { return .damaged }
            let aad = secretAAD(row.itemClass, row.keyClass, row.uuid, row.generation)
            let start = blob.startIndex
            let inner = try keys.itemKeyWrapping.open(
                Data(blob[(start + header)..<(start + header + Self.passwordWrappedLength)]), aad: Self.itemKeyLabel + aad)
            var portable = Data()
            withUnsafeBytes(of: row.generation.bigEndian) { portable.append(contentsOf: $0) }
            portable.append(blob[(start + 1)..<(start + header)])
            inner.withUnsafeBytes { portable.append(contentsOf: $0) }
            portable.append(blob[(start + header + Self.passwordWrappedLength)...])
            return .opened(portable)
        }
    }

    /// The generation a portable password secret (`portablePasswordSecret`) was sealed at: the
    /// row restored from it takes that generation, which its password layer binds.
    ///
    /// - Throws: `errSecDecode` for a value too short to be one.
    static func generation(ofPortablePasswordSecret portable: Data) throws -> Int64 {
        guard portable.count >= 8 + passwordSaltLength + 4 + passwordInnerLength else {
            throw KeychainError(.decode, "a backed-up password-sealed secret is malformed")
        }
        return portable.prefix(8).reduce(0) { $0 << 8 | Int64($1) }
    }

    /// A portable password secret sealed again for a row of `itemClass`, `protection` and `uuid`
    /// at the generation it carries: its password-wrapped item key is wrapped under this
    /// keychain's class key; the password layer and the sealed secret stay as they were.
    ///
    /// - Throws: `errSecDecode` for a malformed value; `errSecInteractionNotAllowed` when the
    ///   class is locked.
    func sealPortablePasswordSecret(_ portable: Data, itemClass: ItemClass, protection: Protection, uuid: Data) throws -> Data {
        let generation = try Self.generation(ofPortablePasswordSecret: portable)
        let keys = try keyRing.classKeys(for: KeybagClass(protection))
        let aad = secretAAD(itemClass, protection.rawValue, uuid, generation)
        let start = portable.startIndex + 8
        let header = Self.passwordSaltLength + 4
        let inner = Data(portable[(start + header)..<(start + header + Self.passwordInnerLength)])
        let wrapped = try keys.itemKeyWrapping.seal(
            inner, aad: Self.itemKeyLabel + aad, nonce: SecureRandom.data(count: AESGCMCipher.nonceLength))
        var blob = Data([Self.passwordSecretFormat])
        blob.append(portable[start..<(start + header)])
        blob.append(wrapped)
        blob.append(portable[(start + header + Self.passwordInnerLength)...])
        return blob
    }

    /// The item key wrapped under the password key alone.
    private static let passwordInnerLength = AESGCMCipher.nonceLength + SymmetricKey.byteCount + AESGCMCipher.tagLength

    private static let passwordSecretFormat: UInt8 = 3
    private static let passwordSaltLength = 16
    /// The item key wrapped under the password key, then under the class key.
    private static let passwordWrappedLength = AESGCMCipher.nonceLength + (AESGCMCipher.nonceLength + SymmetricKey.byteCount + AESGCMCipher.tagLength) + AESGCMCipher.tagLength
    private static let passwordLabel = Array("app-password v1\u{0}".utf8)

    /// Opens `blob`, the sealed secret of `row`, into a buffer zeroed on release; damaged if it
    /// was altered or belongs to another item.
    func openSecret(_ blob: Data, sealedIn row: StoredRow) -> RowOutcome<SecureBytes> {
        openingKeys(row).flatMap { keys in
            let wrappedLength = AESGCMCipher.nonceLength + SymmetricKey.byteCount + AESGCMCipher.tagLength
            guard blob.count >= 1 + wrappedLength, blob.first == Self.secretFormat else { return .damaged }
            let aad = secretAAD(row.itemClass, row.keyClass, row.uuid, row.generation)
            return .opened(
                try blob.withUnsafeBytes { bytes in
                    let wrapped = UnsafeRawBufferPointer(rebasing: bytes[1..<(1 + wrappedLength)])
                    let itemKey = try keys.itemKeyWrapping.open(wrapped, aad: Self.itemKeyLabel + aad)
                    return try SymmetricKey.openOnce(
                        UnsafeRawBufferPointer(rebasing: bytes[(1 + wrappedLength)...]), key: itemKey, aad: aad)
                })
        }
    }

    /// `row` sealed again for `target`, whose key ring holds other class keys (the keychain's
    /// keybag is being replaced): its attributes are opened and sealed again, and its secret's
    /// item key is unwrapped and wrapped again; the secret's own ciphertext, under that item
    /// key, stays. The row keeps its identity, token and generation, so the associated data is
    /// the same; only the keys differ (a row still sealed for the old keys no longer opens).
    ///
    /// - Throws: `errSecDecode` if the row does not open with this sealer's keys.
    func reseal(_ row: StoredRow, for target: ItemSealer) throws -> StoredRow {
        let from = try classKeys(opening: row)
        let to = try target.classKeys(opening: row)
        var random = try RandomDraw(count: 2 * AESGCMCipher.nonceLength)
        let aad = metadataAAD(row)
        var resealed = row
        resealed.metadata = try from.metadata.open(row.metadata, aad: aad).withUnsafeBytes {
            try to.metadata.seal($0, aad: aad, nonce: random.data(count: AESGCMCipher.nonceLength))
        }
        if let blob = row.secret {
            // A password-sealed secret keeps its salt and count; only its outer wrapping changes.
            let passwordSealed = Self.isPasswordSealed(blob)
            let header = passwordSealed ? 1 + Self.passwordSaltLength + 4 : 1
            let wrappedLength = passwordSealed
                ? Self.passwordWrappedLength : AESGCMCipher.nonceLength + SymmetricKey.byteCount + AESGCMCipher.tagLength
            guard blob.count >= header + wrappedLength, passwordSealed || blob.first == Self.secretFormat else {
                throw KeychainError(.decode, "stored secret is malformed")
            }
            let keyAAD = Self.itemKeyLabel + secretAAD(row.itemClass, row.keyClass, row.uuid, row.generation)
            let start = blob.startIndex
            let itemKey = try from.itemKeyWrapping.open(Data(blob[(start + header)..<(start + header + wrappedLength)]), aad: keyAAD)
            let wrapped = try itemKey.withUnsafeBytes {
                try to.itemKeyWrapping.seal($0, aad: keyAAD, nonce: random.data(count: AESGCMCipher.nonceLength))
            }
            var rewrapped = Data(capacity: blob.count)
            rewrapped.append(blob[start..<(start + header)])
            rewrapped.append(wrapped)
            rewrapped.append(blob[(start + header + wrappedLength)...])
            resealed.secret = rewrapped
        }
        return resealed
    }

    private static let metadataLabel = Array("metadata v2\u{0}".utf8)
    private static let secretLabel = Array("secret v2\u{0}".utf8)
    private static let itemKeyLabel = Array("item-key v2".utf8)

    /// `metadata v2 ‖ 0 ‖ class ‖ 0 ‖ protection class ‖ 0 ‖ UUID ‖ token [‖ generation]`.
    private func metadataAAD(
        _ itemClass: ItemClass, _ keyClass: String, _ uuid: Data, _ token: Data, _ generation: Int64
    ) -> [UInt8] {
        var aad = Self.identity(Self.metadataLabel, itemClass, keyClass, uuid, extra: token.count + 8)
        token.withUnsafeBytes { aad.append(contentsOf: $0) }
        Self.appendGeneration(generation, to: &aad)
        return aad
    }

    private func metadataAAD(_ row: StoredRow) -> [UInt8] {
        metadataAAD(row.itemClass, row.keyClass, row.uuid, row.primaryKeyToken, row.generation)
    }

    /// `secret v2 ‖ 0 ‖ class ‖ 0 ‖ protection class ‖ 0 ‖ UUID [‖ generation]`.
    private func secretAAD(_ itemClass: ItemClass, _ keyClass: String, _ uuid: Data, _ generation: Int64) -> [UInt8] {
        var aad = Self.identity(Self.secretLabel, itemClass, keyClass, uuid, extra: 8)
        Self.appendGeneration(generation, to: &aad)
        return aad
    }

    /// The generation as 8 big-endian bytes; nothing for generation 0, which rows sealed before
    /// schema 4 have (their associated data had no generation).
    private static func appendGeneration(_ generation: Int64, to aad: inout [UInt8]) {
        guard generation != 0 else { return }
        withUnsafeBytes(of: generation.bigEndian) { aad.append(contentsOf: $0) }
    }

    private static func identity(_ label: [UInt8], _ itemClass: ItemClass, _ keyClass: String, _ uuid: Data, extra: Int) -> [UInt8] {
        var bytes = label
        bytes.reserveCapacity(label.count + 16 + uuid.count + extra)
        bytes.append(contentsOf: itemClass.rawValue.utf8)
        bytes.append(0)
        bytes.append(contentsOf: keyClass.utf8)
        bytes.append(0)
        // Appended as a buffer: a `Data` appended as a sequence is copied byte by byte.
        uuid.withUnsafeBytes { bytes.append(contentsOf: $0) }
        return bytes
    }
}
