import Foundation

/// The keys of one keychain, derived from its 256-bit root key.
///
/// Until the keybag lands (issue 3), the root key lives in a 0600 file beside the database,
/// created from the CSPRNG on first use. Three subkeys are derived with HKDF-SHA256:
/// - `tokens`: HMAC key for the keyed tokens that index items (primary key, access groups);
/// - `metadata`: AES-256-GCM key for attribute records;
/// - `itemKeyWrapping`: AES-256-GCM key that wraps each item's own secret key.
struct KeychainKeys: Sendable {
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

    /// Loads the root key at `path`, creating it (atomically, 0600) if there is none.
    static func loadOrCreate(at path: String) throws -> KeychainKeys {
        if !FileSystem.exists(path) {
            let root = try SecureBytes.random(count: SymmetricKey.byteCount)
            var contents = magic
            root.withUnsafeBytes { contents.append(contentsOf: $0) }
            defer { contents.wipe() }
            _ = try FileSystem.createExclusively(path, contents: contents)
        }
        try FileSystem.requireNotWritableByOthers(path)
        guard var contents = FileSystem.read(path) else {
            throw KeychainError(.notAvailable, "the keychain key file cannot be read")
        }
        defer { contents.wipe() }
        guard contents.count == magic.count + SymmetricKey.byteCount, contents.prefix(magic.count) == magic else {
            throw KeychainError(.invalidKeychain, "the keychain key file is not valid")
        }
        let root = try SymmetricKey(SecureBytes(copying: contents.suffix(SymmetricKey.byteCount)))
        return try KeychainKeys(root: root)
    }

    /// A value stored in the database that proves the key file belongs to it.
    func keyCheck() throws -> Data {
        try tokens.authenticationCode(for: Data("key check".utf8))
    }
}
