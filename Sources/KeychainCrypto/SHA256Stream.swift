internal import COpenSSL
import Foundation

/// SHA-256 over a message fed in pieces (a file read in chunks), so that no more than one chunk
/// of it is in memory; the context is freed on release.
package final class SHA256Stream {
    private let context: OpaquePointer

    /// A digest of the empty message so far.
    package init() throws {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw OpenSSL.failure("EVP_DigestInit_ex")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Appends `bytes` to the message.
    package func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else { throw OpenSSL.failure("EVP_DigestUpdate") }
    }

    /// The digest of the message (32 bytes); the stream is not used afterwards.
    package func finish() throws -> Data {
        var output = Data(count: 32)
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBytes { out in
            EVP_DigestFinal_ex(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
        }
        guard ok, length == 32 else { throw OpenSSL.failure("EVP_DigestFinal_ex") }
        return output
    }
}
