internal import COpenSSL
import Foundation

/// An OpenSSL `EVP_PKEY` (an RSA or EC key, public or private), owned by this object and freed
/// when it goes. Every function checks its return codes and drains OpenSSL's error queue into a
/// `OpenSSLError` that names the call, never key material.
package final class EVPKey: @unchecked Sendable {
    /// The owned key. Immutable after creation, so sharing between threads is safe.
    package let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        COpenSSL_EVP_PKEY_free(pointer)
    }

    /// Adopts a key an OpenSSL call returned, or throws when it returned NULL.
    package static func adopt(
        _ pointer: OpaquePointer?, _ call: String, _ kind: OpenSSLError.Kind = .malformedInput
    ) throws -> EVPKey {
        guard let pointer else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(kind, "\(call) failed")
        }
        return EVPKey(owning: pointer)
    }

    // MARK: - Generation

    /// A new RSA key of `bits` bits with public exponent 65537.
    package static func generateRSA(bits: Int) throws -> EVPKey {
        guard let context = COpenSSL_EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new_id") }
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_keygen_init(context) == 1, COpenSSL_EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1 else {
            throw OpenSSL.failure("COpenSSL_EVP_PKEY_keygen_init(RSA)")
        }
        var key: OpaquePointer?
        guard COpenSSL_EVP_PKEY_keygen(context, &key) == 1 else { throw OpenSSL.failure("COpenSSL_EVP_PKEY_keygen(RSA)") }
        return try adopt(key, "EVP_PKEY_keygen", .internalFailure)
    }

    /// A new EC key on the curve OpenSSL calls `group` ("prime256v1").
    package static func generateEC(group: String) throws -> EVPKey {
        guard let context = COpenSSL_EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new_id") }
        defer { COpenSSL_EVP_PKEY_CTX_free(context) }
        guard COpenSSL_EVP_PKEY_keygen_init(context) == 1, COpenSSL_EVP_PKEY_CTX_set_group_name(context, group) == 1 else {
            throw OpenSSL.failure("COpenSSL_EVP_PKEY_keygen_init(EC)")
        }
        var key: OpaquePointer?
        guard COpenSSL_EVP_PKEY_keygen(context, &key) == 1 else { throw OpenSSL.failure("COpenSSL_EVP_PKEY_keygen(EC)") }
        return try adopt(key, "EVP_PKEY_keygen", .internalFailure)
    }

    // MARK: - Import

    /// An EC key from an uncompressed point (`04 ‖ X ‖ Y`) and, for a private key, the scalar.
    package static func ec(group: String, point: UnsafeRawBufferPointer, scalar: UnsafeRawBufferPointer?) throws -> EVPKey {
        let key = COpenSSL_ECKeyFromData(
            group, OpenSSL.bytes(point), point.count, scalar.flatMap { OpenSSL.bytes($0) }, scalar?.count ?? 0)
        return try adopt(key, "EC key import")
    }

    /// An EC private key from its scalar alone (the public point is computed).
    package static func ec(group: String, scalar: UnsafeRawBufferPointer) throws -> EVPKey {
        var point = [UInt8](repeating: 0, count: 160)
        let length = COpenSSL_ECPublicPoint(group, OpenSSL.bytes(scalar), scalar.count, &point, point.count)
        guard length > 0 else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(.malformedInput, "EC private scalar is not valid")
        }
        return try point.prefix(length).withUnsafeBytes { try ec(group: group, point: $0, scalar: scalar) }
    }

    /// An RSA public key from PKCS#1 `RSAPublicKey` DER.
    package static func rsaPublic(pkcs1 der: UnsafeRawBufferPointer) throws -> EVPKey {
        var cursor = OpenSSL.bytes(der)
        let key = COpenSSL_d2i_PublicKey(EVP_PKEY_RSA, nil, &cursor, der.count)
        let parsed = try adopt(key, "RSA public key import")
        guard cursor == OpenSSL.bytes(der).map({ $0 + der.count }) else {
            throw OpenSSLError(.malformedInput, "RSA public key import: trailing bytes")
        }
        return parsed
    }

    /// An RSA private key from PKCS#1 `RSAPrivateKey` DER.
    package static func rsaPrivate(pkcs1 der: UnsafeRawBufferPointer) throws -> EVPKey {
        var cursor = OpenSSL.bytes(der)
        let key = COpenSSL_d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, der.count)
        let parsed = try adopt(key, "RSA private key import")
        guard cursor == OpenSSL.bytes(der).map({ $0 + der.count }) else {
            throw OpenSSLError(.malformedInput, "RSA private key import: trailing bytes")
        }
        return parsed
    }

    /// A public key from X.509 `SubjectPublicKeyInfo` DER.
    package static func subjectPublicKeyInfo(_ der: UnsafeRawBufferPointer) throws -> EVPKey {
        var cursor = OpenSSL.bytes(der)
        let key = COpenSSL_d2i_PUBKEY(nil, &cursor, der.count)
        let parsed = try adopt(key, "SubjectPublicKeyInfo import")
        guard cursor == OpenSSL.bytes(der).map({ $0 + der.count }) else {
            throw OpenSSLError(.malformedInput, "SubjectPublicKeyInfo import: trailing bytes")
        }
        return parsed
    }

    /// A private key from DER: PKCS#8 `PrivateKeyInfo` or a traditional RSA/EC structure.
    package static func privateKeyDER(_ der: UnsafeRawBufferPointer) throws -> EVPKey {
        var cursor = OpenSSL.bytes(der)
        return try adopt(COpenSSL_d2i_AutoPrivateKey(nil, &cursor, der.count), "private key import")
    }

    /// A private key from PEM (PKCS#8, encrypted PKCS#8 with `passphrase`, or traditional).
    package static func privateKeyPEM(_ pem: UnsafeRawBufferPointer, passphrase: String?) throws -> EVPKey {
        let bio = try MemoryBIO(pem)
        let key: OpaquePointer? = (passphrase ?? "").withCString { phrase in
            COpenSSL_PEM_read_bio_PrivateKey(bio.pointer, nil, nil, UnsafeMutableRawPointer(mutating: phrase))
        }
        return try adopt(key, "PEM private key import")
    }

    /// A public key from PEM (`PUBLIC KEY`).
    package static func publicKeyPEM(_ pem: UnsafeRawBufferPointer) throws -> EVPKey {
        try adopt(COpenSSL_PEM_read_bio_PUBKEY(try MemoryBIO(pem).pointer, nil, nil, nil), "PEM public key import")
    }

    // MARK: - Facts

    /// `EVP_PKEY_RSA` or `EVP_PKEY_EC`.
    package var baseID: Int32 { COpenSSL_EVP_PKEY_get_base_id(pointer) }

    /// Whether this is an RSA key.
    package var isRSA: Bool { baseID == EVP_PKEY_RSA }

    /// Whether this is an EC key.
    package var isEC: Bool { baseID == EVP_PKEY_EC }

    /// The key size in bits (RSA modulus bits; EC field bits).
    package var bits: Int { Int(COpenSSL_EVP_PKEY_get_bits(pointer)) }

    /// The maximum output size of one operation (RSA: modulus bytes).
    package var size: Int { Int(COpenSSL_EVP_PKEY_get_size(pointer)) }

    /// The EC group's name ("prime256v1"), or nil for RSA.
    package var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard COpenSSL_EVP_PKEY_get_utf8_string_param(pointer, "group", &buffer, buffer.count, &length) == 1 else {
            COpenSSL_ERR_clear_error()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the key holds a private part.
    package var hasPrivatePart: Bool {
        // An RSA key has "d", an EC key "priv"; both are absent from public keys.
        var scalar: OpaquePointer?
        let name = baseID == EVP_PKEY_RSA ? "d" : "priv"
        guard COpenSSL_EVP_PKEY_get_bn_param(pointer, name, &scalar) == 1 else {
            COpenSSL_ERR_clear_error()
            return false
        }
        COpenSSL_BN_clear_free(scalar)
        return true
    }

    // MARK: - Export

    /// The EC public point, uncompressed (`04 ‖ X ‖ Y`).
    package func ecPoint() throws -> Data {
        var length = 0
        guard COpenSSL_EVP_PKEY_get_octet_string_param(pointer, "encoded-pub-key", nil, 0, &length) == 1 else {
            throw OpenSSL.failure("EVP_PKEY_get_octet_string_param")
        }
        var data = Data(count: length)
        let ok = data.withUnsafeMutableBytes { out in
            COpenSSL_EVP_PKEY_get_octet_string_param(
                pointer, "encoded-pub-key", out.baseAddress?.assumingMemoryBound(to: UInt8.self), length, &length) == 1
        }
        guard ok else { throw OpenSSL.failure("EVP_PKEY_get_octet_string_param") }
        return data.prefix(length)
    }

    /// The EC private scalar, left-padded to `length` bytes, in a buffer zeroed on release.
    package func ecScalar(length: Int) throws -> SecureBytes {
        try SecureBytes(count: length) { out in
            guard COpenSSL_ECPrivateScalar(pointer, out.baseAddress!.assumingMemoryBound(to: UInt8.self), length) == 1 else {
                throw OpenSSL.failure("EC private scalar export")
            }
        }
    }

    /// PKCS#1 `RSAPublicKey` DER of an RSA key.
    package func rsaPublicPKCS1() throws -> Data {
        try encode("i2d_PublicKey") { COpenSSL_i2d_PublicKey(pointer, $0) }
    }

    /// PKCS#1 `RSAPrivateKey` DER of an RSA private key, in a buffer zeroed on release.
    package func rsaPrivatePKCS1() throws -> SecureBytes {
        var data = try encode("i2d_PrivateKey") { COpenSSL_i2d_PrivateKey(pointer, $0) }
        defer { data.wipe() }
        return SecureBytes(copying: data)
    }

    /// X.509 `SubjectPublicKeyInfo` DER.
    package func subjectPublicKeyInfo() throws -> Data {
        try encode("i2d_PUBKEY") { COpenSSL_i2d_PUBKEY(pointer, $0) }
    }

    /// PEM `PRIVATE KEY` (PKCS#8), encrypted with AES-256-CBC when `passphrase` is given.
    package func privateKeyPEM(passphrase: String?) throws -> SecureBytes {
        let bio = try MemoryBIO()
        let ok: Bool
        if let passphrase {
            ok = passphrase.withCString { phrase in
                COpenSSL_PEM_write_bio_PKCS8PrivateKey(
                    bio.pointer, pointer, COpenSSL_EVP_aes_256_cbc(), phrase, Int32(strlen(phrase)), nil, nil) == 1
            }
        } else {
            ok = COpenSSL_PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil) == 1
        }
        guard ok else { throw OpenSSL.failure("PEM_write_bio_PKCS8PrivateKey") }
        return bio.secureContents()
    }

    /// PEM `PUBLIC KEY` (SubjectPublicKeyInfo).
    package func publicKeyPEM() throws -> Data {
        let bio = try MemoryBIO()
        guard COpenSSL_PEM_write_bio_PUBKEY(bio.pointer, pointer) == 1 else { throw OpenSSL.failure("PEM_write_bio_PUBKEY") }
        return bio.contents()
    }

    /// Runs an `i2d_…` encoder twice: once for the length, once into the buffer.
    private func encode(_ call: String, _ encoder: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws -> Data {
        let length = encoder(nil)
        guard length > 0 else { throw OpenSSL.failure(call) }
        var data = Data(count: Int(length))
        let written = data.withUnsafeMutableBytes { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return encoder(&cursor)
        }
        guard written == length else { throw OpenSSL.failure(call) }
        return data
    }
}

/// An OpenSSL memory `BIO`, owned and freed by this object.
package final class MemoryBIO {
    /// The owned `BIO`, freed with this object.
    package let pointer: OpaquePointer

    /// An empty, writable memory BIO from OpenSSL's secure heap (cleared when freed).
    package init() throws {
        guard let bio = COpenSSL_BIO_new(COpenSSL_BIO_s_secmem()) else { throw OpenSSL.failure("BIO_new") }
        pointer = bio
    }

    /// A read-only BIO over a copy of `bytes`.
    package convenience init(_ bytes: UnsafeRawBufferPointer) throws {
        try self.init()
        if bytes.count > 0 {
            guard COpenSSL_BIO_write(pointer, bytes.baseAddress, Int32(bytes.count)) == Int32(bytes.count) else {
                throw OpenSSL.failure("BIO_write")
            }
        }
    }

    deinit {
        COpenSSL_BIO_free(pointer)
    }

    /// What has been written so far.
    package func contents() -> Data {
        var base: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIOMemoryData(pointer, &base)
        guard let base, length > 0 else { return Data() }
        return Data(bytes: base, count: length)
    }

    /// What has been written so far, in a buffer zeroed on release.
    package func secureContents() -> SecureBytes {
        var base: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIOMemoryData(pointer, &base)
        guard let base, length > 0 else { return SecureBytes(copying: Data()) }
        return SecureBytes(copying: UnsafeRawBufferPointer(start: base, count: length))
    }
}
