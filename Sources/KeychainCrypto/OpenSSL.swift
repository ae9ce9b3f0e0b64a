internal import COpenSSL
import Foundation

/// OpenSSL's primitives, wrapped once. Each function checks its return codes and turns failures
/// into `OpenSSLError`; OpenSSL's error queue is drained so that one failure never leaks into the
/// next call's diagnostics.
package enum OpenSSL {
    /// Zeroes `count` bytes at `pointer` so that the compiler cannot drop the stores (as
    /// `OPENSSL_cleanse` does, without loading libcrypto).
    package static func cleanse(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
        COpenSSL_cleanse(pointer, count)
    }

    /// Fills `buffer` from OpenSSL's CSPRNG.
    package static func randomBytes(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard buffer.count > 0 else { return }
        guard COpenSSL_RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw failure("RAND_bytes")
        }
    }

    /// HMAC-SHA256 of `message` under `key` (one-off; keys used repeatedly keep an `HMACKey`).
    package static func hmacSHA256(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) throws -> Data {
        try HMACKey(key: key).authenticate(message)
    }

    /// A precomputed HMAC-SHA256 key (the padded key's SHA-256 states), freed and cleansed on release.
    package final class HMACKey: @unchecked Sendable {
        private let handle: UnsafeMutablePointer<COpenSSL_HMACKey>

        /// Prepares `key` (of any length) for HMAC-SHA256.
        package init(key: UnsafeRawBufferPointer) throws {
            guard let handle = COpenSSL_HMACKey_new(bytes(key), key.count) else { throw failure("HMAC key set-up") }
            self.handle = handle
        }

        deinit { COpenSSL_HMACKey_free(handle) }

        /// The MAC of `message`; safe to call from several threads at once.
        package func authenticate(_ message: UnsafeRawBufferPointer) throws -> Data {
            var output = Data(count: 32)
            let ok = output.withUnsafeMutableBytes { out in
                COpenSSL_HMACKey_compute(
                    handle, bytes(message), message.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            guard ok == 1 else { throw failure("HMAC") }
            return output
        }

        /// The MAC of the message `head ‖ body` into the first 32 bytes of `out`, without
        /// joining the parts or allocating; safe to call from several threads at once.
        package func authenticate(
            _ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
        ) throws {
            precondition(out.count >= 32)
            let ok = COpenSSL_HMACKey_compute_parts(
                handle, bytes(head), head.count, bytes(body), body.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
            guard ok == 1 else { throw failure("HMAC") }
        }
    }

    /// HKDF-SHA256 (RFC 5869) expanding `key` with `salt` and `info` into `length` bytes.
    package static func hkdfSHA256(key: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8], length: Int) throws -> SecureBytes {
        try SecureBytes(count: length) { out in
            let status = salt.withUnsafeBufferPointer { saltBuffer in
                info.withUnsafeBufferPointer { infoBuffer in
                    COpenSSL_HKDF_SHA256(
                        bytes(key), key.count, saltBuffer.baseAddress, saltBuffer.count, infoBuffer.baseAddress,
                        infoBuffer.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
                }
            }
            guard status == 1 else { throw failure("HKDF") }
        }
    }

    /// PBKDF2-HMAC-SHA256 (RFC 8018) of `password` with `salt` over `iterations` rounds, into
    /// `length` bytes held in a zeroed-on-release buffer.
    package static func pbkdf2SHA256(
        password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, iterations: Int, length: Int
    ) throws -> SecureBytes {
        precondition(iterations > 0 && iterations <= Int(Int32.max) && length > 0)
        return try SecureBytes(count: length) { out in
            let status = COpenSSL_PKCS5_PBKDF2_HMAC(
                password.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(password.count),
                bytes(salt), Int32(salt.count), Int32(iterations), COpenSSL_EVP_sha256(), Int32(length),
                out.baseAddress!.assumingMemoryBound(to: UInt8.self))
            guard status == 1 else { throw failure("PKCS5_PBKDF2_HMAC") }
        }
    }

    /// scrypt (RFC 7914) of `password` with `salt` and cost parameters N = 2^`log2N`, `r`, `p`,
    /// into `length` bytes; memory use is about 128 · r · N bytes.
    package static func scrypt(
        password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, log2N: Int, r: Int, p: Int, length: Int
    ) throws -> SecureBytes {
        precondition((1...30).contains(log2N) && r > 0 && p > 0 && length > 0)
        let n = UInt64(1) << UInt64(log2N)
        let memory = 128 * UInt64(r) * (n + UInt64(p) + 2)
        return try SecureBytes(count: length) { out in
            let status = COpenSSL_EVP_PBE_scrypt(
                password.baseAddress?.assumingMemoryBound(to: CChar.self), password.count,
                bytes(salt), salt.count, n, UInt64(r), UInt64(p), memory + 1024 * 1024,
                out.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
            guard status == 1 else { throw failure("EVP_PBE_scrypt") }
        }
    }

    /// Whether two buffers of equal length hold the same bytes, in time independent of where they differ.
    package static func constantTimeEqual(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        guard left.count > 0 else { return true }
        return COpenSSL_CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
    }

    /// A message digest by OpenSSL name ("SHA1", "SHA256").
    package static func digest(_ name: String, _ message: UnsafeRawBufferPointer) throws -> Data {
        // The two digests items use go through OpenSSL's one-shot functions (no context to set up).
        switch name {
        case "SHA1": return try shortDigest(bits: 1, length: 20, message)
        case "SHA256": return try shortDigest(bits: 256, length: 32, message)
        default: break
        }
        guard let md = COpenSSL_EVP_get_digestbyname(name) else { throw failure("EVP_get_digestbyname") }
        var output = Data(count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBytes { out in
            COpenSSL_EVP_Digest(
                message.baseAddress, message.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                &length, md, nil) == 1
        }
        guard ok else { throw failure("EVP_Digest") }
        return output.prefix(Int(length))
    }

    private static func shortDigest(bits: Int32, length: Int, _ message: UnsafeRawBufferPointer) throws -> Data {
        var output = Data(count: length)
        let ok = output.withUnsafeMutableBytes { out in
            COpenSSL_SHA(bits, bytes(message), message.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1
        }
        guard ok else { throw failure("SHA") }
        return output
    }

    /// The bytes of `buffer` as OpenSSL takes them (nil for an empty buffer without storage).
    package static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    /// Drains OpenSSL's error queue into an internal failure naming the failed call.
    package static func failure(_ call: String) -> OpenSSLError {
        var codes: [UInt] = []
        while case let code = COpenSSL_ERR_get_error(), code != 0 {
            codes.append(code)
        }
        return OpenSSLError(.internalFailure, "\(call) failed", codes: codes)
    }
}
