import Foundation

/// Apple's ECIES (`kSecKeyAlgorithmECIESEncryption…`, `SecKeyAdaptors.m`): an ephemeral key of
/// the recipient's curve, ECDH, the ANSI X9.63 KDF with SharedInfo = ephemeral public key ‖
/// caller `sharedInfo`, and AES-GCM. The AES key is 16 bytes for curves up to 256 bits, else 32
/// (or `symKeySize`); the IV is 16 zero bytes, or the 16 KDF bytes after the key for the
/// variable-IV algorithms. Output: ephemeral public key ‖ ciphertext ‖ 16-byte tag. Standard
/// and cofactor variants are the same on the NIST curves (cofactor 1).
enum ECIES {
    /// Encrypts to `recipient` (an EC public key).
    static func encrypt(
        _ plaintext: Data, recipient: AsymmetricKey, digest: DigestAlgorithm, variableIV: Bool,
        parameters: KeyOperationParameters
    ) throws -> Data {
        guard case .ellipticCurve(let curve) = recipient.kind else { throw KeychainError.param("ECIES needs an EC key") }
        let ephemeral = try AsymmetricKey.generate(type: .ellipticCurve, bits: curve.rawValue)
        let secret = try ephemeral.backing.deriveSharedSecret(with: recipient.backing)
        let material = try keyMaterial(
            secret: secret, ephemeralPublic: ephemeral.publicKeyBytes, recipientPublic: recipient.publicKeyBytes,
            digest: digest, variableIV: variableIV, parameters: parameters)
        let sealed = try material.key.withUnsafeBytes { key in
            try material.iv.withUnsafeBytes { iv in
                try plaintext.withUnsafeBytes { message in
                    try (parameters.aad ?? Data()).withUnsafeBytes { aad in
                        try AESGCMCipher.seal(key: key, iv: iv, plaintext: message, aad: aad)
                    }
                }
            }
        }
        return ephemeral.publicKeyBytes + sealed
    }

    /// Decrypts with `key` (an EC private key).
    static func decrypt(
        _ ciphertext: Data, key: AsymmetricKey, digest: DigestAlgorithm, variableIV: Bool, parameters: KeyOperationParameters
    ) throws -> SecureBytes {
        guard case .ellipticCurve(let curve) = key.kind else { throw KeychainError.param("ECIES needs an EC key") }
        let pointLength = 1 + 2 * curve.fieldSize
        guard ciphertext.count >= pointLength else { throw KeychainError.param("too small input packet for ECIES decrypt") }
        let ephemeralPoint = Data(ciphertext.prefix(pointLength))
        guard ciphertext.count - pointLength >= AESGCMCipher.tagLength else {
            throw KeychainError.param("ECIES: Input data too short")
        }
        let ephemeral = try AsymmetricKey(externalRepresentation: ephemeralPoint, type: .ellipticCurve, keyClass: .public)
        let secret = try key.backing.deriveSharedSecret(with: ephemeral.backing)
        let material = try keyMaterial(
            secret: secret, ephemeralPublic: ephemeralPoint, recipientPublic: key.publicKeyBytes, digest: digest,
            variableIV: variableIV, parameters: parameters)
        do {
            return try material.key.withUnsafeBytes { aesKey in
                try material.iv.withUnsafeBytes { iv in
                    try ciphertext.dropFirst(pointLength).withUnsafeBytes { sealed in
                        try (parameters.aad ?? Data()).withUnsafeBytes { aad in
                            try AESGCMCipher.open(key: aesKey, iv: iv, sealed: sealed, aad: aad)
                        }
                    }
                }
            }
        } catch let error as KeychainError where error.code == .param {
            throw KeychainError.param("ECIES: Failed to aes-gcm decrypt data")
        }
    }

    /// The AES key and IV derived from the shared secret.
    private static func keyMaterial(
        secret: SecureBytes, ephemeralPublic: Data, recipientPublic: Data, digest: DigestAlgorithm, variableIV: Bool,
        parameters: KeyOperationParameters
    ) throws -> (key: SecureBytes, iv: Data) {
        let keyLength: Int
        if let bits = parameters.symmetricKeySizeInBits {
            keyLength = bits / 8
        } else {
            keyLength = ((recipientPublic.count - 1) / 2) * 8 > 256 ? 32 : 16
        }
        let ivLength = 16
        let derived = try X963KDF.derive(
            digest: digest, secret: secret, sharedInfo: ephemeralPublic + (parameters.sharedInfo ?? Data()),
            length: keyLength + (variableIV ? ivLength : 0))
        let key = derived.withUnsafeBytes { bytes in
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<keyLength]))
        }
        let iv = variableIV ? derived.withUnsafeBytes { Data($0[keyLength...]) } : Data(count: ivLength)
        return (key, iv)
    }
}

/// Apple's RSA-OAEP-AESGCM (`kSecKeyAlgorithmRSAEncryptionOAEP…AESGCM`): a random AES key
/// (128-bit for moduli under 4096 bits, else 256-bit) wrapped with RSA-OAEP; AES-GCM over the
/// data with a 16-byte zero IV and the public key's PKCS#1 bytes as additional data. Output:
/// wrapped key (block size) ‖ ciphertext ‖ 16-byte tag.
enum RSAAESGCM {
    private static let iv = Data(count: 16)

    /// Encrypts to `key` (an RSA public key).
    static func encrypt(_ plaintext: Data, key: AsymmetricKey, digest: DigestAlgorithm) throws -> Data {
        let sessionKey = try SecureBytes.random(count: key.sizeInBits >= 4096 ? 32 : 16)
        let wrapped = try sessionKey.withUnsafeBytes { try key.backing.encrypt($0, padding: .oaep(digest: digest.rawValue)) }
        let sealed = try sessionKey.withUnsafeBytes { aesKey in
            try iv.withUnsafeBytes { iv in
                try plaintext.withUnsafeBytes { message in
                    try key.publicKeyBytes.withUnsafeBytes { aad in
                        try AESGCMCipher.seal(key: aesKey, iv: iv, plaintext: message, aad: aad)
                    }
                }
            }
        }
        return wrapped + sealed
    }

    /// Decrypts with `key` (an RSA private key).
    static func decrypt(_ ciphertext: Data, key: AsymmetricKey, digest: DigestAlgorithm) throws -> SecureBytes {
        let wrappedLength = key.blockSize
        guard ciphertext.count >= wrappedLength + AESGCMCipher.tagLength else {
            throw KeychainError.param("RSA-WRAP too short input data")
        }
        let sessionKey = try ciphertext.prefix(wrappedLength).withUnsafeBytes {
            try key.backing.decrypt($0, padding: .oaep(digest: digest.rawValue))
        }
        guard sessionKey.count == (key.sizeInBits >= 4096 ? 32 : 16) else {
            throw KeychainError.param("RSA-WRAP bad ciphertext, unexpected session key size")
        }
        do {
            return try sessionKey.withUnsafeBytes { aesKey in
                try iv.withUnsafeBytes { iv in
                    try ciphertext.dropFirst(wrappedLength).withUnsafeBytes { sealed in
                        try key.publicKeyBytes.withUnsafeBytes { aad in
                            try AESGCMCipher.open(key: aesKey, iv: iv, sealed: sealed, aad: aad)
                        }
                    }
                }
            }
        } catch let error as KeychainError where error.code == .param {
            throw KeychainError.param("RSA-WRAP: Failed to aes-gcm decrypt data")
        }
    }
}
