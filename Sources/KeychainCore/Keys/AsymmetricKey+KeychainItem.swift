import Foundation
import KeychainCrypto

/// Private keys the keychain holds: a stored private key whose access control has constraints
/// never leaves the keychain (the daemon, or the keychain opened in-process). A caller gets a
/// reference to it, which knows the public key and the persistent reference of the key's item;
/// signing, decryption, key exchange and export are requests to the keychain, which satisfies
/// the key's constraint before it opens the private key.
extension AsymmetricKey {
    /// Whether the keychain holds this key's private half (the key is a reference to its item).
    public var isHeldByKeychain: Bool { keychainItem != nil }

    /// The persistent reference of the item holding this key's private half; nil for a key that
    /// carries its private half.
    public var keychainItemReference: Data? { keychainItem }

    /// A reference to the private key stored in the item `item` names, whose public half is
    /// `publicHalf`'s.
    public static func heldByKeychain(item: Data, publicHalf: AsymmetricKey) throws -> AsymmetricKey {
        AsymmetricKey(keychainItem: item, publicHalf: try publicHalf.publicKey())
    }

    /// Throws `errSecParam` when the keychain holds the private half: a private-key operation or
    /// export must then go to the keychain, and the key cannot be added again by value.
    func requirePrivateHalf() throws {
        guard keychainItem == nil else {
            throw KeychainError.param("the keychain holds this private key: it is used through the keychain and never copied out")
        }
    }

    /// The bytes a reference travels as: the magic `KCITEM01`, the item's persistent reference
    /// (one length byte, then the bytes), then the public key's external representation; nil for
    /// a key that carries its private half.
    public var keychainItemRepresentation: Data? {
        guard let keychainItem, keychainItem.count <= Int(UInt8.max) else { return nil }
        var out = Self.keychainItemMagic
        out.append(UInt8(keychainItem.count))
        out.append(keychainItem)
        out.append(publicKeyBytes)
        return out
    }

    /// Whether `data` has the shape of a `keychainItemRepresentation` (its magic prefix: no
    /// external representation or TPM blob starts so).
    public static func isKeychainItemRepresentation(_ data: Data) -> Bool { data.starts(with: keychainItemMagic) }

    /// A reference from the bytes `keychainItemRepresentation` gave, for a key of `type`.
    ///
    /// - Throws: `errSecDecode` when the bytes are not such a reference or hold no public key of
    ///   that type.
    public init(keychainItemRepresentation data: Data, type: KeyType) throws {
        let bytes = [UInt8](data)
        let start = Self.keychainItemMagic.count
        guard bytes.count > start, bytes.starts(with: Self.keychainItemMagic) else {
            throw KeychainError(.decode, "the key reference is malformed")
        }
        let length = Int(bytes[start])
        guard length > 0, bytes.count > start + 1 + length else { throw KeychainError(.decode, "the key reference is malformed") }
        let item = Data(bytes[(start + 1)...(start + length)])
        let publicBytes = Data(bytes[(start + 1 + length)...])
        let publicHalf: AsymmetricKey
        do {
            publicHalf = try AsymmetricKey(externalRepresentation: publicBytes, type: type, keyClass: .public)
        } catch {
            throw KeychainError(.decode, "the key reference holds no public key of its type")
        }
        self.init(keychainItem: item, publicHalf: publicHalf)
    }

    private static let keychainItemMagic = Data("KCITEM01".utf8)
}
