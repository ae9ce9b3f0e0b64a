internal import COpenSSL
import Foundation

/// AES-GCM with a 128-, 192- or 256-bit key and an IV of any length, as Apple's ECIES and
/// RSA-OAEP-AESGCM layouts use it (16-byte IVs, 16-byte tags). Each call owns its
/// `EVP_CIPHER_CTX` and frees it before returning.
enum AESGCMCipher {
    /// The tag length Apple's layouts use.
    static let tagLength = 16

    /// Encrypts `plaintext`; returns ciphertext ‖ 16-byte tag.
    static func seal(
        key: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer
    ) throws -> Data {
        let context = try makeContext(key: key, iv: iv, encrypting: true)
        defer { EVP_CIPHER_CTX_free(context) }
        var written: Int32 = 0
        if aad.count > 0 {
            guard EVP_EncryptUpdate(context, nil, &written, OpenSSL.bytes(aad), Int32(aad.count)) == 1 else {
                throw OpenSSL.failure("EVP_EncryptUpdate(aad)")
            }
        }
        var output = Data(count: plaintext.count + tagLength)
        try output.withUnsafeMutableBytes { out in
            let base = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var length: Int32 = 0
            if plaintext.count > 0 {
                guard EVP_EncryptUpdate(context, base, &length, OpenSSL.bytes(plaintext), Int32(plaintext.count)) == 1 else {
                    throw OpenSSL.failure("EVP_EncryptUpdate")
                }
            }
            var final: Int32 = 0
            guard EVP_EncryptFinal_ex(context, base + Int(length), &final) == 1,
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), base + plaintext.count) == 1
            else { throw OpenSSL.failure("EVP_EncryptFinal_ex") }
        }
        return output
    }

    /// Decrypts ciphertext ‖ tag into a buffer zeroed on release.
    ///
    /// - Throws: `errSecParam` when the input is shorter than a tag or fails authentication
    ///   (Apple reports both as errSecParam).
    static func open(
        key: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer
    ) throws -> SecureBytes {
        guard sealed.count >= tagLength else { throw KeychainError.param("Input data too short") }
        let length = sealed.count - tagLength
        let context = try makeContext(key: key, iv: iv, encrypting: false)
        defer { EVP_CIPHER_CTX_free(context) }
        var written: Int32 = 0
        if aad.count > 0 {
            guard EVP_DecryptUpdate(context, nil, &written, OpenSSL.bytes(aad), Int32(aad.count)) == 1 else {
                throw OpenSSL.failure("EVP_DecryptUpdate(aad)")
            }
        }
        return try SecureBytes(count: length) { out in
            var produced: Int32 = 0
            if length > 0 {
                guard EVP_DecryptUpdate(
                    context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &produced, OpenSSL.bytes(sealed),
                    Int32(length)) == 1
                else { throw OpenSSL.failure("EVP_DecryptUpdate") }
            }
            let tag = UnsafeMutableRawPointer(mutating: sealed.baseAddress! + length)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), tag) == 1 else {
                throw OpenSSL.failure("EVP_CTRL_GCM_SET_TAG")
            }
            var final: Int32 = 0
            var scratch = [UInt8](repeating: 0, count: 16)
            guard EVP_DecryptFinal_ex(context, &scratch, &final) == 1 else {
                ERR_clear_error()
                throw KeychainError.param("Failed to aes-gcm decrypt data")
            }
        }
    }

    private static func makeContext(key: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, encrypting: Bool) throws -> OpaquePointer {
        let cipher: OpaquePointer?
        switch key.count {
        case 16: cipher = EVP_aes_128_gcm()
        case 24: cipher = EVP_aes_192_gcm()
        case 32: cipher = EVP_aes_256_gcm()
        default: throw KeychainError.param("unsupported AES key size")
        }
        guard iv.count > 0 else { throw KeychainError.param("AES-GCM needs an IV") }
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
        let ok = EVP_CipherInit_ex(context, cipher, nil, nil, nil, encrypting ? 1 : 0) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1
            && EVP_CipherInit_ex(context, nil, nil, OpenSSL.bytes(key), OpenSSL.bytes(iv), encrypting ? 1 : 0) == 1
        guard ok else {
            EVP_CIPHER_CTX_free(context)
            throw OpenSSL.failure("EVP_CipherInit_ex")
        }
        return context
    }
}
