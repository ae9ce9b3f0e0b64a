import Foundation
import KeychainCrypto

/// The keys of a version-1 keychain (the project's first storage format): a 256-bit root key in a
/// 0600 file beside the database (`<keychain>.key`), from which three subkeys were derived with
/// HKDF-SHA256. Kept only so `KeychainMigration` can open version-1 rows once and re-seal them
/// under the keybag.
struct LegacyKeychainKeys: Sendable {
    /// The key file's magic and format version.
    private static let magic = Data("SKC-ROOT-KEY-v1\n".utf8)

    let tokens: SymmetricKey
    let metadata: SymmetricKey
    let itemKeyWrapping: SymmetricKey

    init(root: SymmetricKey) throws {
        tokens = try root.derive(purpose: "keyed tokens v1")
        metadata = try root.derive(purpose: "metadata v1")
        itemKeyWrapping = try root.derive(purpose: "item key wrapping v1")
    }

    /// Loads the root key at `path`.
    ///
    /// - Throws: `errSecInvalidKeychain` when the file is missing or malformed, `errSecWrPerm`
    ///   when it is not private to the calling user.
    static func load(at path: String) throws -> LegacyKeychainKeys {
        guard var contents = try FileSystem.readPrivate(path, role: .legacyKey) else {
            throw KeychainError(.invalidKeychain, "the version-1 keychain's key file is missing")
        }
        defer { contents.wipe() }
        guard contents.count == magic.count + SymmetricKey.byteCount, contents.prefix(magic.count) == magic else {
            throw KeychainError(.invalidKeychain, "the keychain key file is not valid")
        }
        let root = try SymmetricKey(SecureBytes(copying: contents.suffix(SymmetricKey.byteCount)))
        return try LegacyKeychainKeys(root: root)
    }

    /// The value a version-1 database stores (`key-check`) to prove the key file belongs to it.
    func keyCheck() throws -> Data {
        try tokens.authenticationCode(for: Data("key check".utf8))
    }
}
