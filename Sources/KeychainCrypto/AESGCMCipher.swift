internal import COpenSSL
import Foundation

/// AES-GCM under one key: one `EVP_CIPHER_CTX` keyed once (key schedule and GHASH key set up
/// once) and given only a new nonce for each operation. It is the keychain's one AES-GCM code:
/// sealed attributes, secrets and keybag entries (through `SymmetricKey`), backups, and Apple's
/// ECIES and RSA-OAEP-AESGCM layouts all go through it, so its rules hold everywhere:
///
/// - the key has 16, 24 or 32 bytes; the nonce has the length the cipher was made for (12 bytes,
///   GCM's standard nonce, for the keychain's own sealed boxes; 16 for Apple's layouts);
///   anything else is `.badParameter`;
/// - sealed output is ciphertext ‖ 16-byte tag; the additional data is authenticated, not stored;
/// - a sealed input shorter than a tag, or whose tag does not verify under the key, nonce and
///   additional data, is `.authenticationFailed`, and no plaintext is returned;
/// - a failing OpenSSL call is `.internalFailure`, with OpenSSL's error queue drained.
///
/// A cipher serves one operation at a time; `AESGCMContextPool` keeps a key's ciphers for reuse.
/// The context, and with it the key schedule, is cleansed and freed when the cipher goes.
package final class AESGCMCipher: @unchecked Sendable {
    /// The tag length (GCM's full 128-bit tag).
    package static let tagLength = 16
    /// The nonce length of the keychain's own sealed boxes (`nonce ‖ ciphertext ‖ tag`).
    package static let nonceLength = 12

    /// The key length this cipher was keyed for.
    package let keyLength: Int
    /// The nonce length every operation of this cipher takes.
    package let nonceLength: Int
    private let handle: OpaquePointer
    /// Whether the last `scrub` replaced the key schedule (a cipher that still holds a key is not kept).
    package private(set) var isScrubbed = false

    /// A cipher keyed with `key` for nonces of `nonceLength` bytes.
    ///
    /// - Throws: `.badParameter` for a key that is not 16, 24 or 32 bytes or an empty nonce length.
    package init(key: UnsafeRawBufferPointer, nonceLength: Int = AESGCMCipher.nonceLength) throws {
        guard let cipher = COpenSSL_AESGCM(key.count) else { throw OpenSSLError(.badParameter, "unsupported AES key size") }
        guard nonceLength > 0, nonceLength <= Int(Int32.max) else { throw OpenSSLError(.badParameter, "AES-GCM needs a nonce") }
        guard let handle = COpenSSL_EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
        let ok: Bool
        if nonceLength == Self.nonceLength {
            ok = COpenSSL_EVP_CipherInit_ex(handle, cipher, nil, OpenSSL.bytes(key), nil, 1) == 1
        } else {
            // Another nonce length is set between choosing the cipher and keying it.
            ok = COpenSSL_EVP_CipherInit_ex(handle, cipher, nil, nil, nil, 1) == 1
                && COpenSSL_EVP_CIPHER_CTX_ctrl(handle, EVP_CTRL_GCM_SET_IVLEN, Int32(nonceLength), nil) == 1
                && COpenSSL_EVP_CipherInit_ex(handle, nil, nil, OpenSSL.bytes(key), nil, 1) == 1
        }
        guard ok else {
            COpenSSL_EVP_CIPHER_CTX_free(handle)
            throw OpenSSL.failure("EVP_CipherInit_ex")
        }
        self.handle = handle
        self.keyLength = key.count
        self.nonceLength = nonceLength
    }

    deinit { COpenSSL_EVP_CIPHER_CTX_free(handle) }

    /// Keys the cipher again with `key`, of the same length (a new key schedule in the same context).
    ///
    /// - Throws: `.badParameter` for a key of another length.
    package func rekey(_ key: UnsafeRawBufferPointer) throws {
        guard key.count == keyLength else { throw OpenSSLError(.badParameter, "unsupported AES key size") }
        isScrubbed = false
        guard COpenSSL_EVP_CipherInit_ex(handle, nil, nil, OpenSSL.bytes(key), nil, 1) == 1 else {
            throw OpenSSL.failure("EVP_CipherInit_ex")
        }
    }

    /// Replaces the key schedule with that of an all-zero key, so that no key outlives its use.
    package func scrub() {
        isScrubbed = Self.zeroKey.withUnsafeBytes { zero in
            COpenSSL_EVP_CipherInit_ex(handle, nil, nil, OpenSSL.bytes(UnsafeRawBufferPointer(rebasing: zero[..<keyLength])), nil, 1)
        } == 1
        if !isScrubbed { COpenSSL_ERR_clear_error() }
    }

    private static let zeroKey = [UInt8](repeating: 0, count: 32)

    // MARK: Sealing

    /// Encrypts `plaintext` under `nonce`, authenticating `aad`; writes ciphertext ‖ tag into
    /// `output`, which has exactly `plaintext.count + tagLength` bytes.
    package func seal(
        nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws {
        precondition(output.count == plaintext.count + Self.tagLength)
        try start(nonce: nonce, aad: aad, encrypting: true, length: plaintext.count)
        let base = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        if plaintext.count > 0 {
            guard COpenSSL_EVP_EncryptUpdate(handle, base, &written, OpenSSL.bytes(plaintext), Int32(plaintext.count)) == 1 else {
                throw OpenSSL.failure("EVP_EncryptUpdate")
            }
        }
        var final: Int32 = 0
        guard COpenSSL_EVP_EncryptFinal_ex(handle, base + Int(written), &final) == 1 else {
            throw OpenSSL.failure("EVP_EncryptFinal_ex")
        }
        guard COpenSSL_EVP_CIPHER_CTX_ctrl(handle, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), base + plaintext.count) == 1 else {
            throw OpenSSL.failure("EVP_CTRL_GCM_GET_TAG")
        }
    }

    /// Encrypts `plaintext` under `nonce`, authenticating `aad`; returns ciphertext ‖ tag.
    package func seal(nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) throws -> Data {
        var output = Data(count: plaintext.count + Self.tagLength)
        try output.withUnsafeMutableBytes { try seal(nonce: nonce, plaintext: plaintext, aad: aad, into: $0) }
        return output
    }

    /// Seals into the keychain's box layout: `nonce ‖ ciphertext ‖ tag`.
    package func sealBox(nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) throws -> Data {
        var box = Data(count: nonce.count + plaintext.count + Self.tagLength)
        try box.withUnsafeMutableBytes { out in
            if nonce.count > 0 { out.baseAddress!.copyMemory(from: nonce.baseAddress!, byteCount: nonce.count) }
            try seal(nonce: nonce, plaintext: plaintext, aad: aad, into: UnsafeMutableRawBufferPointer(rebasing: out[nonce.count...]))
        }
        return box
    }

    // MARK: Opening

    /// Decrypts ciphertext ‖ tag sealed under `nonce` with `aad` into a buffer zeroed on release.
    ///
    /// - Throws: `.authenticationFailed` when `sealed` is shorter than a tag or does not authenticate.
    package func open(nonce: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) throws -> SecureBytes {
        guard sealed.count >= Self.tagLength else { throw OpenSSLError(.authenticationFailed, "sealed data shorter than its tag") }
        let length = sealed.count - Self.tagLength
        try start(nonce: nonce, aad: aad, encrypting: false, length: length)
        return try SecureBytes(count: length) { out in
            let base = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var written: Int32 = 0
            if length > 0 {
                guard COpenSSL_EVP_DecryptUpdate(handle, base, &written, OpenSSL.bytes(sealed), Int32(length)) == 1 else {
                    throw OpenSSL.failure("EVP_DecryptUpdate")
                }
            }
            let tag = UnsafeMutableRawPointer(mutating: sealed.baseAddress! + length)
            guard COpenSSL_EVP_CIPHER_CTX_ctrl(handle, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), tag) == 1 else {
                throw OpenSSL.failure("EVP_CTRL_GCM_SET_TAG")
            }
            // GCM writes nothing at the end; an empty plaintext has no buffer to point into.
            var scratch: UInt8 = 0
            var final: Int32 = 0
            let authenticated = withUnsafeMutablePointer(to: &scratch) { fallback in
                COpenSSL_EVP_DecryptFinal_ex(handle, base.map { $0 + Int(written) } ?? fallback, &final) == 1
            }
            guard authenticated else {
                COpenSSL_ERR_clear_error()
                throw OpenSSLError(.authenticationFailed, "authentication tag mismatch")
            }
        }
    }

    /// Opens the keychain's box layout, `nonce ‖ ciphertext ‖ tag`.
    ///
    /// - Throws: `.authenticationFailed` when `box` is shorter than a nonce and a tag or does not authenticate.
    package func openBox(_ box: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) throws -> SecureBytes {
        guard box.count >= nonceLength + Self.tagLength else { throw OpenSSLError(.authenticationFailed, "sealed box too short") }
        return try open(
            nonce: UnsafeRawBufferPointer(rebasing: box[..<nonceLength]),
            sealed: UnsafeRawBufferPointer(rebasing: box[nonceLength...]), aad: aad)
    }

    // MARK: One-off keys

    /// Seals with a key used for this one operation (Apple's layouts: a derived or random session
    /// key); returns ciphertext ‖ tag.
    package static func seal(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer
    ) throws -> Data {
        try AESGCMCipher(key: key, nonceLength: nonce.count).seal(nonce: nonce, plaintext: plaintext, aad: aad)
    }

    /// Opens ciphertext ‖ tag with a key used for this one operation.
    ///
    /// - Throws: `.authenticationFailed` when `sealed` is shorter than a tag or does not authenticate.
    package static func open(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer
    ) throws -> SecureBytes {
        try AESGCMCipher(key: key, nonceLength: nonce.count).open(nonce: nonce, sealed: sealed, aad: aad)
    }

    // MARK: Private

    /// Sets `nonce` and the direction, and feeds `aad`, for an operation over `length` bytes.
    private func start(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, encrypting: Bool, length: Int) throws {
        guard nonce.count == nonceLength else { throw OpenSSLError(.badParameter, "AES-GCM nonce has the wrong length") }
        guard length <= Self.maximumLength, aad.count <= Self.maximumLength else {
            throw OpenSSLError(.badParameter, "AES-GCM input is too long")
        }
        let direction: Int32 = encrypting ? 1 : 0
        // A keyed context takes a new nonce without its key schedule being set up again.
        guard COpenSSL_EVP_CipherInit_ex(handle, nil, nil, nil, OpenSSL.bytes(nonce), direction) == 1 else {
            throw OpenSSL.failure("EVP_CipherInit_ex")
        }
        guard aad.count > 0 else { return }
        var written: Int32 = 0
        guard COpenSSL_EVP_CipherUpdate(handle, nil, &written, OpenSSL.bytes(aad), Int32(aad.count)) == 1 else {
            throw OpenSSL.failure("COpenSSL_EVP_CipherUpdate(aad)")
        }
    }

    /// The longest input one OpenSSL call takes (its lengths are 32-bit), less room for the tag.
    private static let maximumLength = Int(Int32.max) - tagLength
}
