internal import COpenSSL
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 over a message fed in pieces (a file read in chunks), so that no more than one chunk
/// of it is in memory; the context is freed on release.
package final class SHA256Stream {
    private let context: OpaquePointer

    /// A digest of the empty message so far.
    package init() throws {
        guard let context = COpenSSL_EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        guard COpenSSL_EVP_DigestInit_ex(context, COpenSSL_EVP_sha256(), nil) == 1 else {
            COpenSSL_EVP_MD_CTX_free(context)
            throw OpenSSL.failure("EVP_DigestInit_ex")
        }
        self.context = context
    }

    deinit { COpenSSL_EVP_MD_CTX_free(context) }

    /// Appends `bytes` to the message.
    package func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        guard COpenSSL_EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else { throw OpenSSL.failure("EVP_DigestUpdate") }
    }

    /// The digest of the message (32 bytes); the stream is not used afterwards.
    package func finish() throws -> Data {
        var output = Data(count: 32)
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBytes { out in
            COpenSSL_EVP_DigestFinal_ex(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
        }
        guard ok, length == 32 else { throw OpenSSL.failure("EVP_DigestFinal_ex") }
        return output
    }

    /// A read of the file being digested failed (`errno` in `number`).
    package struct ReadFailure: Error {
        /// The `errno` value.
        package let number: Int32
    }

    /// SHA-256 of everything `descriptor` reads from where it stands, one 64 KiB chunk in memory
    /// at a time (an executable of any size is digested in constant memory).
    ///
    /// - Throws: `ReadFailure` when a read fails; OpenSSL's failure.
    package static func digest(reading descriptor: Int32) throws -> Data {
        let stream = try SHA256Stream()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = read(descriptor, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadFailure(number: errno)
            }
            if count == 0 { return try stream.finish() }
            try stream.update(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        }
    }
}
