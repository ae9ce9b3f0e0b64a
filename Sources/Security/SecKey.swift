import KeychainCore

// SecKey arrives with issue 4 (keys, certificates, identities over OpenSSL). Until then these
// declarations let client code compile; each returns nil with an errSecUnimplemented CFError,
// as the README's compatibility table states.

/// A cryptographic key (`SecKey`). No key can be created yet.
public final class SecKey: Hashable, @unchecked Sendable {
    private init() {}
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A `SecKey` algorithm name (`SecKeyAlgorithm`), with Apple's string values.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
    public let rawValue: CFString
    public init(rawValue: CFString) { self.rawValue = rawValue }
    public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool { lhs.rawValue.isEqual(rhs.rawValue) }
    public func hash(into hasher: inout Hasher) { hasher.combine(String(rawValue)) }
}

/// The operations `SecKeyIsAlgorithmSupported` asks about.
public enum SecKeyOperationType: Int32, Sendable {
    case sign = 0, verify = 1, encrypt = 2, decrypt = 3, keyExchange = 4
}

/// Reports the not-yet-implemented key API through a `CFError`.
private func unimplemented(_ error: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ function: String) {
    error?.pointee = Unmanaged.passRetained(
        StatusMapping.cfError(status: errSecUnimplemented, reason: "\(function) is not implemented yet"))
}

/// Generates a key pair (`SecKeyCreateRandomKey`). Not implemented yet: returns nil with `errSecUnimplemented`.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    unimplemented(error, "SecKeyCreateRandomKey")
    return nil
}

/// Creates a key from its external representation (`SecKeyCreateWithData`). Not implemented yet.
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    unimplemented(error, "SecKeyCreateWithData")
    return nil
}

/// The public half of a key (`SecKeyCopyPublicKey`). Not implemented yet: no key exists to ask.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? { nil }

/// A key's external representation (`SecKeyCopyExternalRepresentation`). Not implemented yet.
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    unimplemented(error, "SecKeyCopyExternalRepresentation")
    return nil
}

/// A key's attributes (`SecKeyCopyAttributes`). Not implemented yet.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? { nil }

/// A key's block size in bytes (`SecKeyGetBlockSize`). Not implemented yet: 0.
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { 0 }

/// Whether a key supports an algorithm (`SecKeyIsAlgorithmSupported`). Not implemented yet: false.
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    false
}

/// Signs data (`SecKeyCreateSignature`). Not implemented yet.
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    unimplemented(error, "SecKeyCreateSignature")
    return nil
}

/// Verifies a signature (`SecKeyVerifySignature`). Not implemented yet.
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    unimplemented(error, "SecKeyVerifySignature")
    return false
}

/// Encrypts data (`SecKeyCreateEncryptedData`). Not implemented yet.
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    unimplemented(error, "SecKeyCreateEncryptedData")
    return nil
}

/// Decrypts data (`SecKeyCreateDecryptedData`). Not implemented yet.
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    unimplemented(error, "SecKeyCreateDecryptedData")
    return nil
}

/// Performs a key exchange (`SecKeyCopyKeyExchangeResult`). Not implemented yet.
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    unimplemented(error, "SecKeyCopyKeyExchangeResult")
    return nil
}

/// Generates a key pair (`SecKeyGeneratePair`, legacy). Not implemented yet: `errSecUnimplemented`.
public func SecKeyGeneratePair(
    _ parameters: CFDictionary, _ publicKey: UnsafeMutablePointer<SecKey?>?, _ privateKey: UnsafeMutablePointer<SecKey?>?
) -> OSStatus {
    errSecUnimplemented
}
