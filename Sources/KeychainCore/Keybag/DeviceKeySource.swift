import Foundation
import KeychainCrypto

/// Where the device key comes from: the secret, standing in for Apple's hardware UID, that every
/// keybag key is wrapped with, and that binds `…ThisDeviceOnly` items to this machine.
///
/// A file today (`FileDeviceKey`); a TPM-sealed key can take its place behind this protocol.
protocol DeviceKeySource: Sendable {
    /// The device key, created on first use.
    ///
    /// - Throws: `errSecNotAvailable` when it cannot be read or created, `errSecInvalidKeychain`
    ///   when the stored key is malformed, `errSecWrPerm` when its file is not private to the
    ///   calling user.
    func deviceKey() throws -> SymmetricKey
}

/// A device key kept in a 0600 file, `device.key`, in the keychain's 0700 directory. It never
/// goes into a keychain, keybag or backup file; every keychain of the directory shares it, so a
/// backup restores its `…ThisDeviceOnly` items into any keychain of the same directory.
struct FileDeviceKey: DeviceKeySource {
    /// The file's magic and format version.
    private static let magic = Data("SKC-DEVICE-KEY-v1\n".utf8)

    /// The file's name inside the keychain directory.
    static let fileName = "device.key"

    /// The key file.
    let path: String

    /// The device key of the keychains in `directory`.
    init(directory: String) {
        path = (directory as NSString).appendingPathComponent(Self.fileName)
    }

    func deviceKey() throws -> SymmetricKey {
        if !FileSystem.exists(path) {
            let key = try SecureBytes.random(count: SymmetricKey.byteCount)
            var contents = Self.magic
            key.withUnsafeBytes { contents.append(contentsOf: $0) }
            defer { contents.wipe() }
            _ = try FileSystem.createExclusively(path, contents: contents, role: .deviceKey)
        }
        guard var contents = try FileSystem.readPrivate(path, role: .deviceKey) else {
            throw KeychainError(.notAvailable, "the device key file cannot be read")
        }
        defer { contents.wipe() }
        guard contents.count == Self.magic.count + SymmetricKey.byteCount, contents.prefix(Self.magic.count) == Self.magic
        else { throw KeychainError(.invalidKeychain, "the device key file is not valid") }
        return try SymmetricKey(SecureBytes(copying: contents.suffix(SymmetricKey.byteCount)))
    }
}
