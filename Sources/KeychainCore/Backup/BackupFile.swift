import Foundation

/// A keychain backup: a backup keybag and the items re-encrypted to it, in one file, as Apple's
/// encrypted backups carry the keychain: a new set of class keys made for the backup.
///
/// Layout (big-endian): magic, format version, backup UUID, scrypt parameters and salt, a device
/// check value, the number of passcode-only items left out, the backup keybag's entries (one
/// random key per protection class, each wrapped), the item count, an HMAC over all of that
/// (keyed from the password: a mismatch means a wrong password), then the items, then an HMAC
/// over the whole file (a mismatch means the file was altered, even in items that a restore on
/// another device leaves out). Each item is sealed (AES-256-GCM) under its class's backup key
/// with the backup UUID, its position, class, protection class and UUID as associated data, so
/// items cannot be swapped, reordered, dropped or replayed into another backup.
///
/// Migratable classes' keys are wrapped by a key derived from the password alone, so they restore
/// anywhere; `…ThisDeviceOnly` classes' keys by the password mixed with the device key, so they
/// restore only on the device that made the backup. The passcode-only class is never written.
struct BackupFile {
    /// The file's magic.
    static let magic = Data("SKC-BACKUP\n".utf8)
    /// The format of a backup whose items' secrets are all sealed under the backup's keys alone.
    static let plainVersion: UInt16 = 1
    /// The format of a backup holding a secret still sealed under its application password (an
    /// item's plaintext then marks its secret with 2); older readers refuse it as newer.
    static let passwordSealedVersion: UInt16 = 2

    /// The password KDF's cost.
    struct KDFParameters: Equatable {
        var log2N: Int
        var r: Int
        var p: Int
        var salt: Data

        /// Costs a restore accepts (a hostile file cannot demand unbounded memory or time).
        var isAcceptable: Bool { (1...22).contains(log2N) && (1...32).contains(r) && (1...16).contains(p) && salt.count == 16 }
    }

    /// One wrapped backup class key.
    struct Entry {
        var keyClass: KeybagClass
        var deviceBound: Bool
        var wrapped: Data
    }

    /// One sealed item.
    struct SealedItem {
        var itemClass: ItemClass
        var keyClass: KeybagClass
        var uuid: Data
        var sealed: Data
    }

    /// The file's format version (`plainVersion` or `passwordSealedVersion`).
    var version = BackupFile.plainVersion
    var uuid: Data
    var kdf: KDFParameters
    var deviceCheck: Data
    var passcodeOnlyItemsLeftOut: Int
    var entries: [Entry] = []
    var items: [SealedItem] = []

    /// The header's bytes (everything the MAC covers).
    func header() -> Data {
        var writer = ByteWriter()
        writer.raw(Self.magic)
        writer.integer(version)
        writer.raw(uuid)
        writer.u8(UInt8(kdf.log2N))
        writer.integer(UInt32(kdf.r))
        writer.integer(UInt32(kdf.p))
        writer.raw(kdf.salt)
        writer.raw(deviceCheck)
        writer.integer(UInt32(passcodeOnlyItemsLeftOut))
        writer.u8(UInt8(entries.count))
        for entry in entries {
            writer.u8(entry.keyClass.rawValue)
            writer.u8(entry.deviceBound ? 1 : 0)
            writer.lengthPrefixed(entry.wrapped)
        }
        writer.integer(UInt32(items.count))
        return writer.data
    }

    /// The file's bytes: the header, its MAC, the items, and the whole file's MAC, both keyed by `macKey`.
    func encoded(macKey: SymmetricKey) throws -> Data {
        var writer = ByteWriter()
        let header = header()
        writer.raw(header)
        writer.raw(try macKey.authenticationCode(for: header))
        for item in items {
            writer.raw(Data(item.itemClass.rawValue.utf8))
            writer.u8(item.keyClass.rawValue)
            writer.raw(item.uuid)
            writer.lengthPrefixed(item.sealed)
        }
        return writer.data + (try macKey.authenticationCode(for: writer.data))
    }

    /// Parses a backup file and checks its MACs with `macKey`, derived from the password the
    /// caller was given.
    ///
    /// - Throws: `errSecAuthFailed` when the header's MAC does not match (a wrong password);
    ///   `errSecDecode` for anything else that is not an intact backup.
    static func decode(_ data: Data, macKey: (KDFParameters) throws -> SymmetricKey) throws -> BackupFile {
        guard data.count > 32 else { throw KeychainError(.decode, "the file is not a keychain backup") }
        let body = Data(data.dropLast(32))
        var reader = ByteReader(body)
        guard try reader.raw(magic.count) == magic else { throw KeychainError(.decode, "the file is not a keychain backup") }
        let version = try reader.integer(UInt16.self)
        guard (plainVersion...passwordSealedVersion).contains(version) else {
            throw KeychainError(.decode, "the backup was written by a newer version")
        }
        let uuid = try reader.raw(16)
        let kdf = KDFParameters(
            log2N: Int(try reader.u8()), r: Int(try reader.integer(UInt32.self)), p: Int(try reader.integer(UInt32.self)),
            salt: try reader.raw(16))
        guard kdf.isAcceptable else { throw KeychainError(.decode, "the backup's key derivation parameters are out of range") }
        var file = BackupFile(
            uuid: uuid, kdf: kdf, deviceCheck: try reader.raw(32),
            passcodeOnlyItemsLeftOut: Int(try reader.integer(UInt32.self)))
        file.version = version
        for _ in 0..<(try reader.u8()) {
            guard let keyClass = KeybagClass(rawValue: try reader.u8()) else {
                throw KeychainError(.decode, "the backup names an unknown class")
            }
            file.entries.append(
                Entry(keyClass: keyClass, deviceBound: try reader.u8() != 0, wrapped: try reader.lengthPrefixed(limit: 256)))
        }
        let count = Int(try reader.integer(UInt32.self))
        let key = try macKey(kdf)
        let headerMAC = try key.authenticationCode(for: Data(body.prefix(reader.consumed)))
        guard ConstantTime.equal(headerMAC, try reader.raw(32)) else {
            throw KeychainError(.authFailed, "the backup password is not correct")
        }
        guard ConstantTime.equal(try key.authenticationCode(for: body), Data(data.suffix(32))) else {
            throw KeychainError(.decode, "the backup has been altered")
        }
        for _ in 0..<count {
            guard let itemClass = ItemClass(rawValue: String(decoding: try reader.raw(4), as: UTF8.self)), itemClass.isStored,
                let keyClass = KeybagClass(rawValue: try reader.u8()), keyClass != .index
            else { throw KeychainError(.decode, "the backup holds an item of an unknown class") }
            file.items.append(
                SealedItem(itemClass: itemClass, keyClass: keyClass, uuid: try reader.raw(16), sealed: try reader.lengthPrefixed()))
        }
        try reader.requireEnd()
        return file
    }

    /// Associated data binding a wrapped class key to this backup.
    func entryAAD(_ keyClass: KeybagClass, deviceBound: Bool) -> Data {
        Data("backup entry v1".utf8) + uuid + Data([keyClass.rawValue, deviceBound ? 1 : 0])
    }

    /// Associated data binding an item to its place in this backup.
    func itemAAD(index: Int, _ item: SealedItem) -> Data {
        var writer = ByteWriter()
        writer.raw(Data("backup item v1".utf8))
        writer.raw(uuid)
        writer.integer(UInt32(index))
        writer.raw(Data(item.itemClass.rawValue.utf8))
        writer.u8(item.keyClass.rawValue)
        writer.raw(item.uuid)
        return writer.data
    }
}
