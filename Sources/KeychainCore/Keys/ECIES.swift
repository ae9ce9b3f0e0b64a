import Foundation
import KeychainCrypto

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
        let secret = try withEngineErrors { try ephemeral.backing.deriveSharedSecret(with: recipient.backing) }
        let material = try keyMaterial(
            secret: secret, ephemeralPublic: ephemeral.publicKeyBytes, recipientPublic: recipient.publicKeyBytes,
            digest: digest, variableIV: variableIV, parameters: parameters)
        let sealed = try material.key.withUnsafeBytes { key in
            try material.iv.withUnsafeBytes { iv in
                try plaintext.withUnsafeBytes { message in
                    try (parameters.aad ?? Data()).withUnsafeBytes { aad in
                        try withEngineErrors { try AESGCMCipher.seal(key: key, nonce: iv, plaintext: message, aad: aad) }
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
        let secret = try withEngineErrors { try key.sharedSecret(with: ephemeral) }
        let material = try keyMaterial(
            secret: secret, ephemeralPublic: ephemeralPoint, recipientPublic: key.publicKeyBytes, digest: digest,
            variableIV: variableIV, parameters: parameters)
        do {
            return try material.key.withUnsafeBytes { aesKey in
                try material.iv.withUnsafeBytes { iv in
                    try ciphertext.dropFirst(pointLength).withUnsafeBytes { sealed in
                        try (parameters.aad ?? Data()).withUnsafeBytes { aad in
                            try withEngineErrors { try AESGCMCipher.open(key: aesKey, nonce: iv, sealed: sealed, aad: aad) }
                        }
                    }
                }
            }
        } catch let error as KeychainError where error.code == .decode || error.code == .param {
            // Apple reports a ciphertext that does not authenticate (or an unusable AES key) as errSecParam.
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
