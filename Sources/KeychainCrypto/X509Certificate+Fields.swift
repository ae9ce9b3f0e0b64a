internal import COpenSSL
import Foundation

/// The fields of a parsed certificate that the keychain stores or shows, read from OpenSSL's
/// parse: every value a `Certificate` exposes comes from here, so the certificate is parsed once.
extension X509Certificate {
    /// The version field: 0 for v1, 2 for v3 (0 when absent, its default).
    package var version: Int { Int(COpenSSL_X509_get_version(pointer)) }

    /// The serial number as the content octets of its DER INTEGER (big-endian two's complement,
    /// with the leading zero a positive number whose top bit is set needs).
    package func serialNumber() throws -> Data {
        guard let serial = COpenSSL_X509_get0_serialNumber(pointer) else { throw OpenSSLError(.malformedInput, "no serial number") }
        let encoded = try Self.encoding("i2d_ASN1_INTEGER") { COpenSSL_i2d_ASN1_INTEGER(serial, $0) }
        return try Self.contentOctets(of: encoded)
    }

    /// The issuer `Name`, DER-encoded as it appears in the certificate.
    package func issuerName() throws -> Data {
        guard let name = COpenSSL_X509_get_issuer_name(pointer) else { throw OpenSSLError(.malformedInput, "no issuer") }
        return try Self.encoding("i2d_X509_NAME") { COpenSSL_i2d_X509_NAME(name, $0) }
    }

    /// The subject `Name`, DER-encoded as it appears in the certificate.
    package func subjectName() throws -> Data {
        guard let name = COpenSSL_X509_get_subject_name(pointer) else { throw OpenSSLError(.malformedInput, "no subject") }
        return try Self.encoding("i2d_X509_NAME") { COpenSSL_i2d_X509_NAME(name, $0) }
    }

    /// The subjectPublicKey BIT STRING's bits (without its unused-bits octet).
    package func subjectPublicKeyBits() throws -> Data {
        guard let bits = COpenSSL_X509_get0_pubkey_bitstr(pointer) else { throw OpenSSLError(.malformedInput, "no subject public key") }
        return Self.data(of: bits)
    }

    /// The values (the extnValue octets) of the extensions of type `nid`, in certificate order.
    package func extensionValues(_ nid: Int32) -> [Data] {
        (0..<COpenSSL_X509_get_ext_count(pointer)).compactMap { index in
            guard let item = COpenSSL_X509_get_ext(pointer, index), COpenSSL_OBJ_obj2nid(COpenSSL_X509_EXTENSION_get_object(item)) == nid,
                let value = COpenSSL_X509_EXTENSION_get_data(item)
            else { return nil }
            return Self.data(of: value)
        }
    }

    /// The subject key identifier extension's type.
    package static let subjectKeyIdentifierExtension = NID_subject_key_identifier
    /// The subject alternative name extension's type.
    package static let subjectAlternativeNameExtension = NID_subject_alt_name

    /// The key identifier a subject key identifier extension's value holds (an OCTET STRING).
    ///
    /// - Throws: `.malformedInput` when the value is not exactly one OCTET STRING.
    package static func keyIdentifier(_ value: Data) throws -> Data {
        try value.withUnsafeBytes { bytes in
            var cursor = OpenSSL.bytes(bytes)
            guard let identifier = COpenSSL_d2i_ASN1_OCTET_STRING(nil, &cursor, bytes.count) else {
                COpenSSL_ERR_clear_error()
                throw OpenSSLError(.malformedInput, "malformed subject key identifier")
            }
            defer { COpenSSL_ASN1_OCTET_STRING_free(identifier) }
            guard cursor == OpenSSL.bytes(bytes).map({ $0 + bytes.count }) else {
                throw OpenSSLError(.malformedInput, "trailing bytes after the subject key identifier")
            }
            return data(of: identifier)
        }
    }

    /// The rfc822Names and dNSNames of a subject alternative name extension's value (a
    /// GeneralNames SEQUENCE), in order; other kinds of name are skipped.
    ///
    /// - Throws: `.malformedInput` when the value is not exactly one GeneralNames.
    package static func alternativeNames(_ value: Data) throws -> (emailAddresses: [String], dnsNames: [String]) {
        try value.withUnsafeBytes { bytes in
            var cursor = OpenSSL.bytes(bytes)
            guard let names = COpenSSL_d2i_GENERAL_NAMES(nil, &cursor, bytes.count) else {
                COpenSSL_ERR_clear_error()
                throw OpenSSLError(.malformedInput, "malformed subject alternative name")
            }
            defer { COpenSSL_GENERAL_NAMES_free(names) }
            guard cursor == OpenSSL.bytes(bytes).map({ $0 + bytes.count }) else {
                throw OpenSSLError(.malformedInput, "trailing bytes after the subject alternative name")
            }
            var emails: [String] = []
            var dns: [String] = []
            for index in 0..<COpenSSL_GeneralNamesCount(names) {
                var text: UnsafePointer<ASN1_IA5STRING>?
                let kind = COpenSSL_GeneralNameAt(names, index, &text)
                guard let text else { continue }
                let string = String(decoding: data(of: text), as: UTF8.self)
                if kind == GEN_EMAIL { emails.append(string) }
                if kind == GEN_DNS { dns.append(string) }
            }
            return (emails, dns)
        }
    }

    /// The bytes of an `ASN1_STRING` (OCTET STRING, BIT STRING, IA5String, …).
    private static func data(of string: UnsafePointer<ASN1_STRING>) -> Data {
        let length = Int(COpenSSL_ASN1_STRING_length(string))
        guard length > 0, let bytes = COpenSSL_ASN1_STRING_get0_data(string) else { return Data() }
        return Data(bytes: bytes, count: length)
    }

    /// The DER an OpenSSL `i2d_…` function writes (called once for the length, once to write).
    private static func encoding(
        _ call: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws -> Data {
        let length = encode(nil)
        guard length > 0 else { throw OpenSSL.failure(call) }
        var data = Data(count: Int(length))
        let written = data.withUnsafeMutableBytes { buffer in
            var cursor = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return encode(&cursor)
        }
        guard written == length else { throw OpenSSL.failure(call) }
        return data
    }

    /// The content octets of one DER element (its tag and length removed).
    private static func contentOctets(of element: Data) throws -> Data {
        try element.withUnsafeBytes { bytes in
            var cursor = OpenSSL.bytes(bytes)
            var length = 0
            var tag: Int32 = 0
            var tagClass: Int32 = 0
            guard COpenSSL_ASN1_get_object(&cursor, &length, &tag, &tagClass, bytes.count) & 0x80 == 0, let cursor,
                let start = OpenSSL.bytes(bytes), cursor - start + length == bytes.count
            else {
                COpenSSL_ERR_clear_error()
                throw OpenSSLError(.malformedInput, "malformed DER element")
            }
            return Data(bytes: cursor, count: length)
        }
    }
}
