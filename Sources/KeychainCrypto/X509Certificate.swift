internal import COpenSSL
import Foundation

/// An OpenSSL `X509` certificate, owned by this object and freed when it goes: the keychain's one
/// parser of X.509 certificates. It checks that DER is a whole, well-formed certificate, and
/// provides every field the keychain uses (the ones Apple stores as attributes, in
/// `X509Certificate+Fields.swift`), the public key, and the validity and chain checks.
package final class X509Certificate: @unchecked Sendable {
    /// The owned certificate (immutable after creation, so sharing between threads is safe).
    package let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Takes a reference of a certificate OpenSSL keeps owning (for example one of a stack).
    package init(retaining pointer: OpaquePointer) {
        COpenSSL_X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit {
        COpenSSL_X509_free(pointer)
    }

    /// Parses DER; the input must be exactly one certificate.
    ///
    /// - Throws: `.malformedInput` for anything else.
    package init(der: UnsafeRawBufferPointer) throws {
        guard der.count > 0 else { throw OpenSSLError(.malformedInput, "empty certificate") }
        var cursor = OpenSSL.bytes(der)
        guard let certificate = COpenSSL_d2i_X509(nil, &cursor, der.count) else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(.malformedInput, "not a DER X.509 certificate")
        }
        guard cursor == OpenSSL.bytes(der).map({ $0 + der.count }) else {
            COpenSSL_X509_free(certificate)
            throw OpenSSLError(.malformedInput, "trailing bytes after the certificate")
        }
        pointer = certificate
    }

    /// The certificate's DER encoding.
    package func der() throws -> Data {
        let length = COpenSSL_i2d_X509(pointer, nil)
        guard length > 0 else { throw OpenSSL.failure("i2d_X509") }
        var data = Data(count: Int(length))
        data.withUnsafeMutableBytes { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            _ = COpenSSL_i2d_X509(pointer, &cursor)
        }
        return data
    }

    /// The subject public key.
    package func publicKey() throws -> EVPKey {
        try EVPKey.adopt(COpenSSL_X509_get_pubkey(pointer), "X509_get_pubkey", .malformedInput)
    }

    /// Whether `key` is the private key of this certificate's public key.
    package func matches(privateKey key: EVPKey) -> Bool {
        let result = COpenSSL_X509_check_private_key(pointer, key.pointer) == 1
        COpenSSL_ERR_clear_error()
        return result
    }

    /// Checks the certificate against the system's trust anchors (OpenSSL's default paths),
    /// with `intermediates` as untrusted chain candidates, at the current time.
    ///
    /// - Returns: nil when trusted, or OpenSSL's `X509_V_ERR_…` code.
    package func verificationError(intermediates: [X509Certificate]) -> Int32? {
        guard let store = COpenSSL_X509_STORE_new() else { return X509_V_ERR_UNSPECIFIED }
        defer { COpenSSL_X509_STORE_free(store) }
        COpenSSL_X509_STORE_set_default_paths(store)
        guard let chain = COpenSSL_X509StackNew() else { return X509_V_ERR_UNSPECIFIED }
        defer { COpenSSL_X509StackFree(chain) }
        for certificate in intermediates {
            COpenSSL_X509_up_ref(certificate.pointer)
            if COpenSSL_X509StackPush(chain, certificate.pointer) == 0 { COpenSSL_X509_free(certificate.pointer) }
        }
        guard let context = COpenSSL_X509_STORE_CTX_new() else { return X509_V_ERR_UNSPECIFIED }
        defer { COpenSSL_X509_STORE_CTX_free(context) }
        guard COpenSSL_X509_STORE_CTX_init(context, store, pointer, chain) == 1 else { return X509_V_ERR_UNSPECIFIED }
        let verified = COpenSSL_X509_verify_cert(context) == 1
        let error = COpenSSL_X509_STORE_CTX_get_error(context)
        COpenSSL_ERR_clear_error()
        return verified ? nil : error
    }

    /// `X509_V_ERR_CERT_HAS_EXPIRED`.
    package static let expiredError = X509_V_ERR_CERT_HAS_EXPIRED
    /// `X509_V_ERR_CERT_NOT_YET_VALID`.
    package static let notYetValidError = X509_V_ERR_CERT_NOT_YET_VALID

    /// The certificates of an OpenSSL stack, each retained.
    package static func certificates(of stack: OpaquePointer?) -> [X509Certificate] {
        guard let stack else { return [] }
        return (0..<COpenSSL_X509StackCount(stack)).compactMap { index in
            COpenSSL_X509StackValue(stack, index).map { X509Certificate(retaining: $0) }
        }
    }
}
