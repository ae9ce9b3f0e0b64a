import Foundation
import KeychainCrypto

/// Backup and restore of the whole keychain through a password-protected backup file
/// (`BackupFile`), as Apple's encrypted backups carry the keychain: migratable items restore
/// anywhere, `…ThisDeviceOnly` items only on the device that made the backup, and
/// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` items and token items (`kSecAttrTokenID`:
/// keys held by the TPM, whose blobs load on no other TPM) are never backed up. The secret of an
/// item sealed under an application password goes into the backup still sealed under that
/// password (only the keychain's own layer is replaced by the backup's): neither the backup nor
/// its password reveals it, and the restored item opens with the application password alone.
extension Keychain {
    /// Writes every item (but the passcode-only ones and token items) to a new backup file at `path`, protected
    /// by `password`: a private file (0600, the calling user's) from before its first byte,
    /// renamed over any file at `path`.
    ///
    /// - Throws: `errSecPassphraseRequired` for an empty password; `errSecInteractionNotAllowed`
    ///   when an item's class is locked (unlock first); `errSecWrPerm` when the file written
    ///   would not be private (a filesystem that ignores modes or owners); storage errors.
    @discardableResult
    public func backup(to path: String, password: Data) throws -> BackupSummary {
        guard !password.isEmpty else { throw KeychainError(.passphraseRequired, "a backup needs a password") }
        var file = BackupFile(
            uuid: try SecureRandom.data(count: 16),
            kdf: .init(log2N: options.backupWorkFactor, r: 8, p: 1, salt: try SecureRandom.data(count: 16)),
            deviceCheck: Data(), passcodeOnlyItemsLeftOut: 0)
        file.deviceCheck = try BackupKeys.deviceCheck(uuid: file.uuid, deviceKey: deviceKey)
        let keys = try BackupKeys(password: SecureBytes(copying: password), kdf: file.kdf, deviceKey: deviceKey)

        var classKeys: [KeybagClass: SymmetricKey] = [:]
        for keyClass in KeybagClass.protectionClasses where keyClass != .whenPasscodeSetThisDeviceOnly {
            let key = try SymmetricKey.random()
            let deviceBound = Self.isThisDeviceOnly(keyClass)
            let wrapped = try key.bytes.withUnsafeBytes {
                try (deviceBound ? keys.deviceWrapping : keys.passwordWrapping)
                    .seal($0, aad: file.entryAAD(keyClass, deviceBound: deviceBound))
            }
            classKeys[keyClass] = key
            file.entries.append(.init(keyClass: keyClass, deviceBound: deviceBound, wrapped: wrapped))
        }

        try reading { tx in
            for row in try tx.allRows() {
                if row.protection == .whenPasscodeSetThisDeviceOnly {
                    file.passcodeOnlyItemsLeftOut += 1
                    continue
                }
                let record: ItemRecord
                switch store.open(row) {
                case .opened(let opened): record = opened
                case .damaged: continue
                case .locked: throw KeychainError.classLocked
                }
                if record.attributes[.tokenID] != nil { continue }
                guard let key = classKeys[KeybagClass(record.protection)] else { continue }
                // An item whose attributes open but whose secret does not fails the backup.
                var plaintext: Data
                if let blob = row.secret, KeychainStore.isPasswordSealed(blob) {
                    let portable = try store.portablePasswordSecret(blob, sealedIn: row).get()
                    plaintext = try Self.backupPlaintext(record, secret: SecureBytes(copying: portable), passwordSealed: true)
                    file.version = BackupFile.passwordSealedVersion
                } else {
                    plaintext = try Self.backupPlaintext(
                        record, secret: row.secret.map { try store.openSecret($0, sealedIn: row).get() }, passwordSealed: false)
                }
                defer { plaintext.wipe() }
                var item = BackupFile.SealedItem(
                    itemClass: record.itemClass, keyClass: KeybagClass(record.protection), uuid: record.uuid, sealed: Data())
                item.sealed = try key.seal(plaintext, aad: file.itemAAD(index: file.items.count, item))
                file.items.append(item)
            }
        }
        try FileSystem.replaceAtomically(path, contents: file.encoded(macKey: keys.mac), role: .backup)
        return BackupSummary(itemCount: file.items.count, passcodeOnlyItemsLeftOut: file.passcodeOnlyItemsLeftOut)
    }

    /// Replaces this keychain's items with a backup's, in one transaction. Items keep their
    /// attributes, dates and persistent references. On another device the `…ThisDeviceOnly`
    /// items are left out (they cannot be decrypted there) and counted.
    ///
    /// - Throws: `errSecAuthFailed` for a wrong password; `errSecDecode` for a damaged or altered
    ///   backup (nothing is changed); `errSecInteractionNotAllowed` when a class the backup needs
    ///   is locked here (unlock first).
    @discardableResult
    public func restore(from path: String, password: Data) throws -> RestoreSummary {
        guard !password.isEmpty else { throw KeychainError(.passphraseRequired, "a backup needs a password") }
        guard let data = FileSystem.read(path) else { throw KeychainError(.io, "the backup file cannot be read") }
        var derived: BackupKeys?
        let file = try BackupFile.decode(data) { kdf in
            let keys = try BackupKeys(password: SecureBytes(copying: password), kdf: kdf, deviceKey: deviceKey)
            derived = keys
            return keys.mac
        }
        guard let keys = derived else { throw KeychainError(.decode, "the backup could not be read") }
        let sameDevice = ConstantTime.equal(try BackupKeys.deviceCheck(uuid: file.uuid, deviceKey: deviceKey), file.deviceCheck)

        var classKeys: [KeybagClass: SymmetricKey] = [:]
        for entry in file.entries where !entry.deviceBound || sameDevice {
            let wrapping = entry.deviceBound ? keys.deviceWrapping : keys.passwordWrapping
            classKeys[entry.keyClass] = try SymmetricKey(
                wrapping.open(entry.wrapped, aad: file.entryAAD(entry.keyClass, deviceBound: entry.deviceBound)))
        }
        var items: [(record: ItemRecord, secret: Data?, passwordSealed: Bool)] = []
        defer {
            for index in items.indices { items[index].secret?.wipe() }
        }
        var leftOut = 0
        for (index, item) in file.items.enumerated() {
            guard let key = classKeys[item.keyClass] else {
                guard Self.isThisDeviceOnly(item.keyClass) && !sameDevice else {
                    throw KeychainError(.decode, "the backup lacks the key of one of its items")
                }
                leftOut += 1
                continue
            }
            let plaintext = try key.open(item.sealed, aad: file.itemAAD(index: index, item))
            items.append(try Self.restoredItem(plaintext, item, version: file.version))
        }
        // Sealed inside the transaction: with the keys of the keybag it commits with.
        try writing(removing: true) { tx in
            try tx.deleteAllRows()
            for (record, secret, passwordSealed) in items {
                if passwordSealed, let secret {
                    try tx.insert(record, portablePasswordSecret: secret)
                } else {
                    try tx.insert(record, secret: secret)
                }
            }
        }
        return RestoreSummary(restoredCount: items.count, thisDeviceOnlyItemsLeftOut: leftOut, isSameDevice: sameDevice)
    }

    private static func isThisDeviceOnly(_ keyClass: KeybagClass) -> Bool {
        [.whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly, .whenPasscodeSetThisDeviceOnly]
            .contains(keyClass)
    }

    /// An item's plaintext inside a backup: its record (attributes and access control), then its
    /// secret's kind (0 none, 1 the secret, 2 the secret still sealed under its application
    /// password: `ItemSealer.portablePasswordSecret`) and bytes.
    private static func backupPlaintext(_ record: ItemRecord, secret: SecureBytes?, passwordSealed: Bool) throws -> Data {
        var writer = ByteWriter()
        var encoded = RecordCodec.encode(record.attributes, accessControl: record.accessControl?.serialized)
        defer { encoded.wipe() }
        writer.lengthPrefixed(encoded)
        writer.u8(secret == nil ? 0 : passwordSealed ? 2 : 1)
        writer.lengthPrefixed(secret?.withUnsafeBytes { Data($0) } ?? Data())
        return writer.data
    }

    /// The record and secret of an opened backup item, and whether the secret is still sealed
    /// under its application password (a file of `passwordSealedVersion` only).
    private static func restoredItem(
        _ plaintext: SecureBytes, _ item: BackupFile.SealedItem, version: UInt16
    ) throws -> (ItemRecord, Data?, Bool) {
        var bytes = plaintext.withUnsafeBytes { Data($0) }
        defer { bytes.wipe() }
        var reader = ByteReader(bytes)
        var attributes = try RecordCodec.decode(try reader.lengthPrefixed())
        let kind = try reader.u8()
        // A first-format backup wrote any kind but 0 for a secret.
        let hasSecret = kind != 0
        let passwordSealed = version >= BackupFile.passwordSealedVersion && kind == 2
        guard version < BackupFile.passwordSealedVersion || kind <= 2 else {
            throw KeychainError(.decode, "a backup item's secret is of an unknown kind")
        }
        let secret = try reader.lengthPrefixed()
        try reader.requireEnd()
        var accessControl: AccessControlPolicy?
        if case .data(let serialized)? = attributes.removeValue(forKey: .accessControl) {
            accessControl = try AccessControlPolicy(serialized: serialized)
        }
        let record = ItemRecord(
            rowID: 0, itemClass: item.itemClass, uuid: item.uuid, attributes: attributes, accessControl: accessControl)
        guard KeybagClass(record.protection) == item.keyClass else {
            throw KeychainError(.decode, "a backup item's protection class does not match its record")
        }
        if passwordSealed {
            guard enforcedClasses.contains(record.itemClass),
                record.accessControl?.flags.contains(.applicationPassword) == true
            else { throw KeychainError(.decode, "a backup item's password-sealed secret belongs to no application-password item") }
        }
        return (record, hasSecret ? secret : nil, passwordSealed)
    }
}
