import Foundation
import KeychainCrypto

/// Apple's RSA-OAEP-AESGCM (`kSecKeyAlgorithmRSAEncryptionOAEP…AESGCM`): a random AES key
/// (128-bit for moduli under 4096 bits, else 256-bit) wrapped with RSA-OAEP; AES-GCM over the
/// data with a 16-byte zero IV and the public key's PKCS#1 bytes as additional data. Output:
/// wrapped key (block size) ‖ ciphertext ‖ 16-byte tag.
enum RSAAESGCM {
    private static let iv = Data(count: 16)

    /// Encrypts to `key` (an RSA public key).
    static func encrypt(_ plaintext: Data, key: AsymmetricKey, digest: DigestAlgorithm) throws -> Data {
        let sessionKey = try SecureBytes.random(count: key.sizeInBits >= 4096 ? 32 : 16)
        let wrapped = try sessionKey.withUnsafeBytes { bytes in
            try withEngineErrors { try key.backing.encrypt(bytes, padding: .oaep(digest: digest.rawValue)) }
        }
        let sealed = try sessionKey.withUnsafeBytes { aesKey in
            try iv.withUnsafeBytes { iv in
                try plaintext.withUnsafeBytes { message in
                    try key.publicKeyBytes.withUnsafeBytes { aad in
                        try withEngineErrors { try AESGCMCipher.seal(key: aesKey, nonce: iv, plaintext: message, aad: aad) }
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
        let sessionKey = try ciphertext.prefix(wrappedLength).withUnsafeBytes { bytes in
            try withEngineErrors { try key.backing.decrypt(bytes, padding: .oaep(digest: digest.rawValue)) }
        }
        guard sessionKey.count == (key.sizeInBits >= 4096 ? 32 : 16) else {
            throw KeychainError.param("RSA-WRAP bad ciphertext, unexpected session key size")
        }
        do {
            return try sessionKey.withUnsafeBytes { aesKey in
                try iv.withUnsafeBytes { iv in
                    try ciphertext.dropFirst(wrappedLength).withUnsafeBytes { sealed in
                        try key.publicKeyBytes.withUnsafeBytes { aad in
                            try withEngineErrors { try AESGCMCipher.open(key: aesKey, nonce: iv, sealed: sealed, aad: aad) }
                        }
                    }
                }
            }
        } catch let error as KeychainError where error.code == .decode || error.code == .param {
            // Apple reports a ciphertext that does not authenticate as errSecParam.
            throw KeychainError.param("RSA-WRAP: Failed to aes-gcm decrypt data")
        }
    }
}
