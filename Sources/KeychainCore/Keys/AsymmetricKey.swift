import Foundation
import KeychainCrypto
import KeychainHardware

/// An RSA or elliptic-curve key, public or private: the engine's `SecKey`.
///
/// One type over the kinds of key (as swift-certificates' `CertificatePublicKey`), backed by an
/// OpenSSL key. Two keys are equal when they have the same kind, class and public key, as
/// Apple's `CFEqual` on software keys compares their attributes (references to private keys the
/// keychain holds also by their item); private bytes are never compared or hashed.
public struct AsymmetricKey: Hashable, Sendable {
    /// The algorithm and size.
    public enum Kind: Hashable, Sendable {
        /// RSA with a modulus of `bits` bits.
        case rsa(bits: Int)
        /// ECDSA/ECDH on a NIST prime curve.
        case ellipticCurve(ECCurve)
    }

    /// The algorithm and size.
    public let kind: Kind
    /// Public or private.
    public let keyClass: KeyClass
    /// The public key bytes Apple hashes for `kSecAttrApplicationLabel`: PKCS#1
    /// `RSAPublicKey` DER for RSA, the uncompressed point `04 ‖ X ‖ Y` for EC.
    public let publicKeyBytes: Data
    /// The OpenSSL key; for a hardware key, its public half only.
    let backing: EVPKey
    /// For a private key held by the TPM (`kSecAttrTokenIDSecureEnclave`): its TPM-wrapped blob,
    /// which every private-key operation sends to the TPM. Nil for software keys.
    package let hardware: TPMKeyBlob?
    /// For a private key the keychain holds (its item has access control with constraints): the
    /// persistent reference of its item, which every private-key operation sends to the keychain.
    /// Nil for a key that carries its private half.
    package let keychainItem: Data?

    /// Wraps an OpenSSL key, reading its kind and public bytes.
    ///
    /// - Throws: `errSecParam` for key types other than RSA and the NIST prime curves.
    init(_ key: EVPKey) throws {
        if key.isRSA {
            kind = .rsa(bits: key.bits)
            publicKeyBytes = try withEngineErrors { try key.rsaPublicPKCS1() }
        } else if key.isEC, let curve = key.groupName.flatMap(ECCurve.init(groupName:)) {
            kind = .ellipticCurve(curve)
            publicKeyBytes = try withEngineErrors { try key.ecPoint() }
        } else {
            throw KeychainError.param("Unsupported key type")
        }
        keyClass = key.hasPrivatePart ? .private : .public
        backing = key
        hardware = nil
        keychainItem = nil
    }

    /// A private key held by the TPM: its public half in software, its private half as `blob`.
    init(hardware blob: TPMKeyBlob) throws {
        let point = try withEngineErrors {
            try blob.publicPoint.withUnsafeBytes { try EVPKey.ec(group: ECCurve.p256.groupName, point: $0, scalar: nil) }
        }
        kind = .ellipticCurve(.p256)
        keyClass = .private
        publicKeyBytes = blob.publicPoint
        backing = point
        hardware = blob
        keychainItem = nil
    }

    /// A private key the keychain holds: `publicHalf`'s kind and public key, the private half
    /// known only as the persistent reference `item` of its keychain item.
    init(keychainItem item: Data, publicHalf: AsymmetricKey) {
        kind = publicHalf.kind
        keyClass = .private
        publicKeyBytes = publicHalf.publicKeyBytes
        backing = publicHalf.backing
        hardware = nil
        keychainItem = item
    }

    public static func == (lhs: AsymmetricKey, rhs: AsymmetricKey) -> Bool {
        lhs.kind == rhs.kind && lhs.keyClass == rhs.keyClass && lhs.publicKeyBytes == rhs.publicKeyBytes
            && (lhs.hardware == nil) == (rhs.hardware == nil) && lhs.keychainItem == rhs.keychainItem
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(keyClass)
        hasher.combine(publicKeyBytes)
    }

    // MARK: - Generation

    /// A new private key (`SecKeyCreateRandomKey`).
    ///
    /// - Parameters:
    ///   - type: RSA or EC.
    ///   - bits: EC: 192, 224, 256, 384 or 521; RSA: a multiple of 8 from 512 to 8192 (Apple's
    ///     range; public exponent 65537).
    /// - Throws: `errSecKeySizeNotAllowed` for another size.
    public static func generate(type: KeyType, bits: Int) throws -> AsymmetricKey {
        switch type {
        case .ellipticCurve:
            guard let curve = ECCurve(rawValue: bits) else {
                throw KeychainError(.keySizeNotAllowed, "EC key size is not supported")
            }
            return try AsymmetricKey(withEngineErrors { try EVPKey.generateEC(group: curve.groupName) })
        case .rsa:
            guard (512...8192).contains(bits), bits % 8 == 0 else {
                throw KeychainError(.keySizeNotAllowed, "RSA key size is not supported")
            }
            return try AsymmetricKey(withEngineErrors { try EVPKey.generateRSA(bits: bits) })
        }
    }

    // MARK: - Facts

    /// The key's type.
    public var type: KeyType {
        if case .rsa = kind { return .rsa }
        return .ellipticCurve
    }

    /// The key size in bits (`kSecAttrKeySizeInBits`).
    public var sizeInBits: Int {
        switch kind {
        case .rsa(let bits): return bits
        case .ellipticCurve(let curve): return curve.rawValue
        }
    }

    /// `SecKeyGetBlockSize`: the modulus length for RSA, the field size for EC, in bytes.
    public var blockSize: Int {
        switch kind {
        case .rsa(let bits): return (bits + 7) / 8
        case .ellipticCurve(let curve): return curve.fieldSize
        }
    }

    /// `kSecAttrApplicationLabel`: the SHA-1 of the public key bytes.
    public var applicationLabel: Data {
        (try? Digest.sha1(publicKeyBytes)) ?? Data()
    }

    /// The public half (`SecKeyCopyPublicKey`); a public key returns itself.
    public func publicKey() throws -> AsymmetricKey {
        return try withEngineErrors {
            guard keyClass == .private else { return self }
            if hardware != nil || keychainItem != nil { return try AsymmetricKey(backing) }
            switch kind {
            case .rsa:
                return try publicKeyBytes.withUnsafeBytes { try AsymmetricKey(EVPKey.rsaPublic(pkcs1: $0)) }
            case .ellipticCurve(let curve):
                return try publicKeyBytes.withUnsafeBytes {
                    try AsymmetricKey(EVPKey.ec(group: curve.groupName, point: $0, scalar: nil))
                }
            }
        }
    }

    /// The X.509 `SubjectPublicKeyInfo` DER of the public key.
    public func subjectPublicKeyInfo() throws -> Data {
        try withEngineErrors { try publicKey().backing.subjectPublicKeyInfo() }
    }
}
