import Foundation
import KeychainCrypto

/// The message digests Apple's key algorithms name.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// MD5 (RSA PKCS#1 v1.5 signatures only).
    case md5 = "MD5"
    /// SHA-1.
    case sha1 = "SHA1"
    /// SHA-224.
    case sha224 = "SHA224"
    /// SHA-256.
    case sha256 = "SHA256"
    /// SHA-384.
    case sha384 = "SHA384"
    /// SHA-512.
    case sha512 = "SHA512"

    /// The output length in bytes.
    public var length: Int {
        switch self {
        case .md5: return 16
        case .sha1: return 20
        case .sha224: return 28
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// The SHA family, in Apple's order.
    static let shaFamily: [DigestAlgorithm] = [.sha1, .sha224, .sha256, .sha384, .sha512]

    /// The digest of `message`.
    func hash<Bytes: ContiguousBytes>(_ message: Bytes) throws -> Data {
        try withEngineErrors { try message.withUnsafeBytes { try OpenSSL.digest(rawValue, $0) } }
    }
}

/// ANSI X9.63 key derivation (SEC 1 §3.6.1): `Hash(Z ‖ counter ‖ SharedInfo)` for counter = 1, 2, …
/// (32-bit big-endian), concatenated and cut to the requested length.
enum X963KDF {
    /// Derives `length` bytes from the shared secret `secret` and `sharedInfo`.
    static func derive(
        digest: DigestAlgorithm, secret: SecureBytes, sharedInfo: Data, length: Int
    ) throws -> SecureBytes {
        guard length >= 0, length <= digest.length * Int(UInt32.max) else {
            throw KeychainError.param("requested KDF output is too long")
        }
        return try SecureBytes(count: length) { out in
            var produced = 0
            var counter: UInt32 = 1
            while produced < length {
                var block = Data()
                secret.withUnsafeBytes { block.append(contentsOf: $0) }
                withUnsafeBytes(of: counter.bigEndian) { block.append(contentsOf: $0) }
                block.append(sharedInfo)
                var output = try digest.hash(block)
                block.wipe()
                let take = min(output.count, length - produced)
                output.withUnsafeBytes { source in
                    out.baseAddress!.advanced(by: produced).copyMemory(from: source.baseAddress!, byteCount: take)
                }
                output.wipe()
                produced += take
                counter += 1
            }
        }
    }
}
