import Foundation
import KeychainCore
import KeychainCrypto

/// A cryptographic key (`SecKey`): RSA or elliptic curve (P-192 to P-521), public or private.
///
/// Equal keys have the same type, class and public key, as Apple compares software keys; a
/// private key is never compared by its private bytes.
///
/// A stored private key whose access control has constraints is a reference: the keychain keeps
/// the private key, and signing, decryption, key exchange and export are requests to it, made
/// through the keychain and context the key was found or made with (`KeyHolder`).
public final class SecKey: Hashable, @unchecked Sendable, CustomStringConvertible {
    let key: AsymmetricKey
    /// Where a private key the keychain holds is used; nil for other keys.
    let holder: KeyHolder?

    /// Whether releasing this object forgets the key the keychain keeps in memory for it.
    private let forgetsOnRelease: Bool

    /// A key; `forgetsOnRelease` for the one object that owns a key the keychain keeps in
    /// memory only (`AsymmetricKey.isKeptInKeychainMemory`).
    init(_ key: AsymmetricKey, holder: KeyHolder? = nil, forgetsOnRelease: Bool = false) {
        self.key = key
        self.holder = key.isHeldByKeychain ? holder ?? .process : nil
        self.forgetsOnRelease = forgetsOnRelease && key.isKeptInKeychainMemory
    }

    /// Asks the keychain to forget a key it keeps in memory for this object, at best effort
    /// (the keychain also drops it when this process is gone).
    deinit {
        guard forgetsOnRelease, let handle = key.keychainItemReference else { return }
        try? (holder?.keychain ?? ProcessKeychain.resolve()).forgetEphemeralKey(handle)
    }

    /// For a key the keychain holds, the keychain's answer to `operation`; nil for a key that
    /// carries its private half (the caller runs the operation itself).
    func keychainOperation(_ operation: KeyUse.Operation) throws -> Data? {
        guard let holder else { return nil }
        return try holder.run(operation, with: key)
    }

    public static func == (lhs: SecKey, rhs: SecKey) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// Names the key's type, size and class, never its value.
    public var description: String {
        let kind = key.type == .rsa ? "RSA" : "EC"
        return "<SecKey algorithm: \(kind), size: \(key.sizeInBits), class: \(key.keyClass == .private ? "private" : "public")>"
    }
}

/// Reports `error` through a `CFError` out-parameter, as Apple's `…WithError` functions do.
func report(_ error: any Error, to out: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
    out?.pointee = Unmanaged.passRetained(StatusMapping.cfError(for: error))
}

/// Runs `body`, returning its value, or nil with the error in `out`.
func reporting<T>(_ out: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws -> T) -> T? {
    do {
        return try body()
    } catch {
        report(error, to: out)
        return nil
    }
}

/// Generates a key pair and returns its private key (`SecKeyCreateRandomKey`).
///
/// `kSecAttrKeyType` (`kSecAttrKeyTypeECSECPrimeRandom` or `kSecAttrKeyTypeRSA`) and
/// `kSecAttrKeySizeInBits` are required (`errSecParam` without them); they and the other
/// parameters may be at the top level or in `kSecPrivateKeyAttrs` / `kSecPublicKeyAttrs` (the
/// sub-dictionary wins). A key
/// whose parameters say `kSecAttrIsPermanent` is stored in the keychain, as `SecItemAdd` with
/// `kSecValueRef` stores it (the private key's application label is the SHA-1 of the public key).
///
/// - Returns: the private key, or nil with a `CFError`: `errSecParam` for a missing or unknown
///   type or a missing size; `errSecKeySizeNotAllowed` for an unsupported size (EC 192, 224, 256,
///   384, 521; RSA multiples of 8 from 512 to 8192); `errSecUnimplemented` for Secure Enclave
///   keys (`kSecAttrTokenIDSecureEnclave`); the `SecItemAdd` status when storing fails.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    reporting(error) { try KeyGeneration.run(parameters).privateKey }
}

/// Generates a key pair (`SecKeyGeneratePair`, legacy): `SecKeyCreateRandomKey` and
/// `SecKeyCopyPublicKey`, returning the status instead of a `CFError`.
public func SecKeyGeneratePair(
    _ parameters: CFDictionary, _ publicKey: UnsafeMutablePointer<SecKey?>?, _ privateKey: UnsafeMutablePointer<SecKey?>?
) -> OSStatus {
    do {
        let pair = try KeyGeneration.run(parameters)
        publicKey?.pointee = pair.publicKey
        privateKey?.pointee = pair.privateKey
        return errSecSuccess
    } catch {
        return StatusMapping.status(for: error)
    }
}

/// Creates a key from its external representation (`SecKeyCreateWithData`): ANSI X9.63 for EC
/// (`04 ‖ X ‖ Y`, plus `K` for private keys), PKCS#1 for RSA (public keys also as X.509
/// SubjectPublicKeyInfo).
///
/// - Parameters:
///   - keyData: the key's external representation.
///   - attributes: `kSecAttrKeyType` and `kSecAttrKeyClass` (required); `kSecAttrKeySizeInBits`
///     is accepted (the size comes from the data).
///   - error: receives a `CFError` on failure.
/// - Returns: the key, or nil with an `errSecParam` `CFError` for data that is not such a key
///   (`errSecUnimplemented` for symmetric keys).
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    reporting(error) {
        let values = try RequestBridge.dictionary(attributes)
        guard let type = values[kSecAttrKeyType as String].flatMap(KeyGeneration.attribute).flatMap(KeyType.init(attribute:)) else {
            throw KeychainError.param("Unsupported key type")
        }
        guard let keyClass = values[kSecAttrKeyClass as String].flatMap(KeyGeneration.attribute).flatMap(KeyClass.init(attribute:)) else {
            throw KeychainError.param("Unsupported key class")
        }
        return SecKey(try AsymmetricKey(externalRepresentation: Data(referencing: keyData), type: type, keyClass: keyClass))
    }
}

/// The public key of a key pair (`SecKeyCopyPublicKey`); a public key returns an equal key.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    (try? key.key.publicKey()).map { SecKey($0) }
}

/// The key's external representation (`SecKeyCopyExternalRepresentation`): see
/// `SecKeyCreateWithData`. For a private key this is the private key itself; for one the
/// keychain holds, the keychain gives it once the key's access control is satisfied
/// (`errSecInteractionNotAllowed`, `errSecUserCanceled` or `errSecAuthFailed` otherwise).
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    reporting(error) {
        if var exported = try key.keychainOperation(.export) {
            defer { exported.wipe() }
            return ResultBridge.secretObject(exported)
        }
        return try key.key.externalRepresentation().withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }
}

/// The key's attributes (`SecKeyCopyAttributes`), as Apple reports a software key: class,
/// `kSecAttrKeyClass` and `kSecAttrKeyType` as strings, size, application label, the
/// usage flags as booleans, and `kSecValueData` (the external representation).
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    var dictionary: [String: Any] = [kSecClass as String: kSecClassKey as String]
    for (attribute, value) in key.key.itemAttributes {
        switch attribute {
        case .keyClass, .type: dictionary[attribute.name] = String(value.integerValue ?? 0)
        case .keySizeInBits, .effectiveKeySize: dictionary[attribute.name] = NSNumber(value: value.integerValue ?? 0)
        case .applicationLabel: dictionary[attribute.name] = ResultBridge.object(value)
        default: dictionary[attribute.name] = NSNumber(value: value.integerValue == 1)
        }
    }
    if let representation = try? key.key.externalRepresentation() {
        dictionary[kSecValueData as String] = representation.withUnsafeBytes { Data($0) }
    }
    return dictionary as NSDictionary
}

/// The key's block size in bytes (`SecKeyGetBlockSize`): the modulus length for RSA, the field
/// size for EC.
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { key.key.blockSize }

/// Whether the key can run `algorithm` for `operation` (`SecKeyIsAlgorithmSupported`): false
/// for another key type, the wrong class (signing needs a private key, verifying a public one),
/// or a key too small for the padding.
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    key.key.supports(operation.operation, String(algorithm.rawValue))
}

/// Signs data with a private key (`SecKeyCreateSignature`). A key the keychain holds signs in
/// the keychain, after its access control (with `.privateKeyUsage`) is satisfied.
///
/// - Returns: the signature (DER for X9.62 ECDSA, `r ‖ s` for RFC 4754), or nil with a
///   `CFError`: `errSecParam` when the key does not support the algorithm or a digest has the
///   wrong length; `errSecInteractionNotAllowed`, `errSecUserCanceled` or `errSecAuthFailed`
///   when the key's access control is not satisfied.
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) {
        let algorithm = String(algorithm.rawValue)
        let data = Data(referencing: dataToSign)
        if let signature = try key.keychainOperation(.sign(algorithm: algorithm, data: data)) { return NSData(data: signature) }
        return NSData(data: try key.key.sign(algorithm, data))
    }
}

/// Verifies a signature with a public key (`SecKeyVerifySignature`).
///
/// - Returns: true, or false with a `CFError`: `errSecVerifyFailed` for a signature that does
///   not match (or is malformed); `errSecParam` when the key does not support the algorithm.
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    reporting(error) {
        try key.key.verify(String(algorithm.rawValue), Data(referencing: signedData), signature: Data(referencing: signature))
        return true
    } ?? false
}

/// Encrypts with a public key (`SecKeyCreateEncryptedData`), in Apple's byte layouts.
///
/// - Returns: the ciphertext, or nil with an `errSecParam` `CFError` (unsupported algorithm,
///   plaintext too long).
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { NSData(data: try key.key.encrypt(String(algorithm.rawValue), Data(referencing: plaintext))) }
}

/// Decrypts with a private key (`SecKeyCreateDecryptedData`). A key the keychain holds decrypts
/// in the keychain, after its access control (with `.privateKeyUsage`) is satisfied.
///
/// - Returns: the plaintext, or nil with an `errSecParam` `CFError` (unsupported algorithm, bad
///   padding, failed authentication); `errSecInteractionNotAllowed`, `errSecUserCanceled` or
///   `errSecAuthFailed` when the key's access control is not satisfied.
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) {
        let algorithm = String(algorithm.rawValue)
        let data = Data(referencing: ciphertext)
        if var plaintext = try key.keychainOperation(.decrypt(algorithm: algorithm, data: data)) {
            defer { plaintext.wipe() }
            return plaintext.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
        }
        return try key.key.decrypt(algorithm, data).withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }
}

/// ECDH between a private key and a peer's public key (`SecKeyCopyKeyExchangeResult`).
///
/// - Parameters:
///   - privateKey: this side's private key.
///   - algorithm: an `ecdhKeyExchange…` algorithm.
///   - publicKey: the peer's public key, of the same curve.
///   - parameters: for the X9.63 algorithms `kSecKeyKeyExchangeParameterRequestedSize`
///     (required) and `kSecKeyKeyExchangeParameterSharedInfo` (optional `CFData`).
///   - error: receives a `CFError` on failure.
/// - Returns: the shared secret (or KDF output), or nil with an `errSecParam` `CFError`.
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) {
        let values = try RequestBridge.dictionary(parameters)
        var options = KeyOperationParameters()
        switch values["requestedSize"] {
        case .integer(let size)?: options.requestedSize = Int(size)
        case nil: break
        default: throw KeychainError.param("kSecKeyKeyExchangeParameterRequestedSize must be a number")
        }
        switch values["sharedInfo"] {
        case .data(let info)?: options.sharedInfo = info
        case nil: break
        default: throw KeychainError.param("ECDHKeyExchange wrong sharedInfo type (must be CFData/NSData)")
        }
        let algorithm = String(algorithm.rawValue)
        if var secret = try privateKey.keychainOperation(
            .keyExchange(algorithm: algorithm, peer: try publicKey.key.publicKey(), parameters: options))
        {
            defer { secret.wipe() }
            return secret.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
        }
        return try privateKey.key.keyExchange(algorithm, peer: publicKey.key, parameters: options)
            .withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }
}
