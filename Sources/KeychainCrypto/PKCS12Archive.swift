internal import COpenSSL
import Foundation

/// An OpenSSL `PKCS12` structure, owned by this object and freed when it goes.
package final class PKCS12Archive {
    /// What a PKCS#12 file holds for one identity.
    package struct Contents {
        /// The private key, if any.
        package var privateKey: EVPKey?
        /// The certificate matching the private key (or the only certificate).
        package var certificate: X509Certificate?
        /// The other certificates (the chain), in file order.
        package var chain: [X509Certificate]
        /// The certificate bag's `friendlyName`.
        package var friendlyName: String?
        /// The certificate bag's `localKeyID`.
        package var localKeyID: Data?
    }

    private let pointer: OpaquePointer

    /// Parses the DER of a PKCS#12 file (`PFX`).
    ///
    /// - Throws: `.malformedInput` when it is not one.
    package init(der: UnsafeRawBufferPointer) throws {
        guard der.count > 0 else { throw OpenSSLError(.malformedInput, "empty PKCS#12 data") }
        var cursor = OpenSSL.bytes(der)
        guard let archive = COpenSSL_d2i_PKCS12(nil, &cursor, der.count) else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(.malformedInput, "not a PKCS#12 file")
        }
        pointer = archive
    }

    deinit {
        COpenSSL_PKCS12_free(pointer)
    }

    /// Checks the password and decrypts the contents.
    ///
    /// - Throws: `.wrongPassword` for a wrong password; `.malformedInput` for contents that
    ///   cannot be decrypted or parsed (including algorithms OpenSSL cannot provide).
    package func open(password: String) throws -> Contents {
        OpenSSLProviders.loadLegacy()
        // An empty password may have been encoded as an empty string or as none at all.
        let candidates: [String?] = password.isEmpty ? ["", nil] : [password]
        var chosen: String??
        if COpenSSL_PKCS12_mac_present(pointer) == 1 {
            for candidate in candidates where verifyMAC(candidate) {
                chosen = .some(candidate)
                break
            }
            COpenSSL_ERR_clear_error()
            guard let chosen else { throw OpenSSLError(.wrongPassword, "the PKCS#12 password is not correct") }
            return try parse(password: chosen)
        }
        var lastError: (any Error)?
        for candidate in candidates {
            do { return try parse(password: candidate) } catch { lastError = error }
        }
        throw lastError ?? OpenSSLError(.malformedInput, "PKCS#12 contents could not be read")
    }

    private func verifyMAC(_ password: String?) -> Bool {
        guard let password else { return COpenSSL_PKCS12_verify_mac(pointer, nil, 0) == 1 }
        return password.withCString { COpenSSL_PKCS12_verify_mac(pointer, $0, Int32(strlen($0))) == 1 }
    }

    private func parse(password: String?) throws -> Contents {
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        let ok: Bool
        if let password {
            ok = password.withCString { COpenSSL_PKCS12_parse(pointer, $0, &key, &certificate, &others) == 1 }
        } else {
            ok = COpenSSL_PKCS12_parse(pointer, nil, &key, &certificate, &others) == 1
        }
        defer { COpenSSL_X509StackFree(others) }
        guard ok else {
            COpenSSL_ERR_clear_error()
            throw OpenSSLError(.malformedInput, "the PKCS#12 contents could not be decrypted or parsed")
        }
        var contents = Contents(
            privateKey: try key.map { try EVPKey.adopt($0, "PKCS12_parse") },
            certificate: nil, chain: X509Certificate.certificates(of: others))
        if let certificate {
            let leaf = X509Certificate(retaining: certificate)
            COpenSSL_X509_free(certificate)
            var length: Int32 = 0
            if let alias = COpenSSL_X509_alias_get0(leaf.pointer, &length), length > 0 {
                contents.friendlyName = String(decoding: UnsafeBufferPointer(start: alias, count: Int(length)), as: UTF8.self)
            }
            if let keyID = COpenSSL_X509_keyid_get0(leaf.pointer, &length), length > 0 {
                contents.localKeyID = Data(bytes: keyID, count: Int(length))
            }
            contents.certificate = leaf
        }
        return contents
    }

    /// Writes a PKCS#12 file holding `key`, `certificate` and `chain`, protected by `password`
    /// with OpenSSL's current defaults (AES-256-CBC, PBKDF2, HMAC-SHA-256).
    package static func create(
        key: EVPKey?, certificate: X509Certificate?, chain: [X509Certificate], password: String, friendlyName: String?
    ) throws -> Data {
        guard let stack = COpenSSL_X509StackNew() else { throw OpenSSL.failure("sk_X509_new_null") }
        defer { COpenSSL_X509StackFree(stack) }
        for member in chain {
            COpenSSL_X509_up_ref(member.pointer)
            if COpenSSL_X509StackPush(stack, member.pointer) == 0 { COpenSSL_X509_free(member.pointer) }
        }
        let archive: OpaquePointer? = password.withCString { phrase in
            if let friendlyName {
                return friendlyName.withCString { name in
                    COpenSSL_PKCS12_create(phrase, name, key?.pointer, certificate?.pointer, stack, 0, 0, 0, 0, 0)
                }
            }
            return COpenSSL_PKCS12_create(phrase, nil, key?.pointer, certificate?.pointer, stack, 0, 0, 0, 0, 0)
        }
        guard let archive else { throw OpenSSL.failure("PKCS12_create") }
        defer { COpenSSL_PKCS12_free(archive) }
        let length = COpenSSL_i2d_PKCS12(archive, nil)
        guard length > 0 else { throw OpenSSL.failure("i2d_PKCS12") }
        var data = Data(count: Int(length))
        data.withUnsafeMutableBytes { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            _ = COpenSSL_i2d_PKCS12(archive, &cursor)
        }
        return data
    }
}
