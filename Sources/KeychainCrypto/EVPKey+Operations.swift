internal import COpenSSL
import Foundation

/// How an RSA operation pads its input (OpenSSL's `RSA_…_PADDING` modes, with their digests).
package enum RSAPadding: Sendable {
    /// No padding: the input is the integer itself (`kSecKeyAlgorithm…Raw`).
    case none
    /// PKCS#1 v1.5; for signatures with `digest`, the input is wrapped in a `DigestInfo`.
    case pkcs1(digest: String?)
    /// PSS with MGF1 over the same digest and a salt as long as the digest.
    case pss(digest: String)
    /// OAEP with MGF1 over the same digest and an empty label.
    case oaep(digest: String)
}

extension EVPKey {
    /// Signs `input` (a digest, or for raw modes the padded value) with this private key.
    /// EC keys produce DER `ECDSA-Sig-Value`; `padding` applies to RSA keys only.
    package func sign(_ input: UnsafeRawBufferPointer, padding: RSAPadding?) throws -> Data {
        let context = try operationContext()
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_sign_init(context) == 1 else { throw OpenSSL.failure("EVP_PKEY_sign_init") }
        try configure(context, padding: padding)
        var length = 0
        guard COpenSSL_EVP_PKEY_sign(context, nil, &length, OpenSSL.bytes(input), input.count) == 1 else {
            throw OpenSSL.failure("EVP_PKEY_sign")
        }
        var signature = Data(count: length)
        let ok = signature.withUnsafeMutableBytes { out in
            COpenSSL_EVP_PKEY_sign(
                context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, OpenSSL.bytes(input), input.count) == 1
        }
        guard ok else { throw OpenSSLError(.badParameter, "the input does not fit the key and algorithm") }
        return signature.prefix(length)
    }

    /// Whether `signature` is a valid signature of `input` under this key. A malformed
    /// signature is simply not valid.
    package func verify(_ input: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer, padding: RSAPadding?) throws -> Bool {
        let context = try operationContext()
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_verify_init(context) == 1 else { throw OpenSSL.failure("EVP_PKEY_verify_init") }
        try configure(context, padding: padding)
        let status = COpenSSL_EVP_PKEY_verify(
            context, OpenSSL.bytes(signature), signature.count, OpenSSL.bytes(input), input.count)
        COpenSSL_ERR_clear_error()
        return status == 1
    }

    /// RSA public operation without padding (`verify_recover` with `RSA_NO_PADDING`): the
    /// signature's integer raised to the public exponent, as block-size bytes; nil when the
    /// signature is not a valid input.
    package func recoverRaw(_ signature: UnsafeRawBufferPointer) throws -> Data? {
        let context = try operationContext()
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_verify_recover_init(context) == 1 else { throw OpenSSL.failure("EVP_PKEY_verify_recover_init") }
        try configure(context, padding: RSAPadding.none)
        var length = size
        var output = Data(count: length)
        let ok = output.withUnsafeMutableBytes { out in
            COpenSSL_EVP_PKEY_verify_recover(
                context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, OpenSSL.bytes(signature),
                signature.count) == 1
        }
        COpenSSL_ERR_clear_error()
        return ok ? output.prefix(length) : nil
    }

    /// RSA encryption with this public key.
    ///
    /// - Throws: `.badParameter` when the input is too long for the key and padding.
    package func encrypt(_ input: UnsafeRawBufferPointer, padding: RSAPadding) throws -> Data {
        let context = try operationContext()
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_encrypt_init(context) == 1 else { throw OpenSSL.failure("EVP_PKEY_encrypt_init") }
        try configure(context, padding: padding)
        var length = size
        var output = Data(count: length)
        let ok = output.withUnsafeMutableBytes { out in
            COpenSSL_EVP_PKEY_encrypt(
                context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, OpenSSL.bytes(input), input.count) == 1
        }
        guard ok else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(.badParameter, "RSAencrypt wrong input size")
        }
        return output.prefix(length)
    }

    /// RSA decryption with this private key, into a buffer zeroed on release.
    ///
    /// - Throws: `.badParameter` when the ciphertext or its padding is wrong.
    package func decrypt(_ input: UnsafeRawBufferPointer, padding: RSAPadding) throws -> SecureBytes {
        let context = try operationContext()
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_decrypt_init(context) == 1 else { throw OpenSSL.failure("EVP_PKEY_decrypt_init") }
        try configure(context, padding: padding)
        var length = size
        var plaintext = [UInt8](repeating: 0, count: length)
        defer { plaintext.withUnsafeMutableBytes { SecureBytes.wipe($0) } }
        let ok = plaintext.withUnsafeMutableBufferPointer { out in
            COpenSSL_EVP_PKEY_decrypt(context, out.baseAddress, &length, OpenSSL.bytes(input), input.count) == 1
        }
        guard ok else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(.badParameter, "RSAdecrypt wrong input")
        }
        return SecureBytes(copying: plaintext[0..<length])
    }

    /// ECDH: the shared x-coordinate with `peer`'s public key, field-size bytes.
    ///
    /// - Throws: `.badParameter` when the peer key is not on this key's curve.
    package func deriveSharedSecret(with peer: EVPKey) throws -> SecureBytes {
        let context = try operationContext()
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_derive_init(context) == 1 else { throw OpenSSL.failure("EVP_PKEY_derive_init") }
        guard COpenSSL_EVP_PKEY_derive_set_peer(context, peer.pointer) == 1 else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(.badParameter, "ECpriv sharedsecret: bad public key")
        }
        var length = 0
        guard COpenSSL_EVP_PKEY_derive(context, nil, &length) == 1 else { throw OpenSSL.failure("EVP_PKEY_derive") }
        return try SecureBytes(count: length) { out in
            var written = length
            guard COpenSSL_EVP_PKEY_derive(context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) == 1,
                written == length
            else { throw OpenSSL.failure("EVP_PKEY_derive") }
        }
    }

    private func operationContext() throws -> OpaquePointer {
        guard let context = COpenSSL_EVP_PKEY_CTX_new(pointer, nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new") }
        return context
    }

    private func configure(_ context: OpaquePointer, padding: RSAPadding?) throws {
        guard let padding, baseID == EVP_PKEY_RSA else { return }
        func digest(_ name: String) throws -> OpaquePointer {
            guard let md = COpenSSL_EVP_get_digestbyname(name) else { throw OpenSSL.failure("EVP_get_digestbyname") }
            return md
        }
        var ok = true
        switch padding {
        case .none:
            ok = COpenSSL_EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING) == 1
        case .pkcs1(let name):
            ok = COpenSSL_EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
            if let name {
                let md = try digest(name)
                ok = ok && COpenSSL_EVP_PKEY_CTX_set_signature_md(context, md) == 1
            }
        case .pss(let name):
            let md = try digest(name)
            ok = COpenSSL_EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1
                && COpenSSL_EVP_PKEY_CTX_set_signature_md(context, md) == 1
                && COpenSSL_EVP_PKEY_CTX_set_rsa_mgf1_md(context, md) == 1
                && COpenSSL_EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) == 1
        case .oaep(let name):
            let md = try digest(name)
            ok = COpenSSL_EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1
                && COpenSSL_EVP_PKEY_CTX_set_rsa_oaep_md(context, md) == 1
                && COpenSSL_EVP_PKEY_CTX_set_rsa_mgf1_md(context, md) == 1
        }
        guard ok else { throw OpenSSL.failure("RSA padding configuration") }
    }
}
