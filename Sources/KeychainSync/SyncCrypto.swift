import Foundation
import KeychainCrypto

/// The symmetric primitives of sync: random bytes, AES-256-GCM boxes (`nonce ‖ ciphertext ‖ tag`)
/// with associated data, SHA-256, HKDF-SHA256, scrypt, and the padding that hides lengths.
enum SyncCrypto {
    /// Bytes of a key.
    static let keyLength = 32
    /// Bytes of a GCM nonce.
    static let nonceLength = 12
    /// Bytes a box adds to its plaintext (nonce and tag).
    static let boxOverhead = nonceLength + AESGCMCipher.tagLength
    /// The smallest padded plaintext: every item shorter than this looks the same size.
    static let smallestBucket = 256

    /// `count` random bytes.
    static func random(_ count: Int) throws -> Data {
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { try OpenSSL.randomBytes($0) }
        return data
    }

    /// A fresh 256-bit key.
    static func newKey() throws -> Data { try random(keyLength) }

    /// Seals `plaintext` under `key` with a random nonce, authenticating `aad`.
    static func seal(_ plaintext: Data, key: Data, aad: Data) throws -> Data {
        let nonce = try random(nonceLength)
        let sealed = try key.withUnsafeBytes { key in
            try nonce.withUnsafeBytes { nonce in
                try plaintext.withUnsafeBytes { plaintext in
                    try aad.withUnsafeBytes { aad in
                        try AESGCMCipher.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad)
                    }
                }
            }
        }
        return nonce + sealed
    }

    /// Opens a box sealed by `seal` with the same key and associated data.
    ///
    /// - Throws: `SyncError.refused` when the box is malformed or does not authenticate.
    static func open(_ box: Data, key: Data, aad: Data) throws -> Data {
        guard box.count >= boxOverhead else { throw SyncError(.refused, "a sealed value is too short") }
        let nonce = Data(box.prefix(nonceLength))
        let sealed = Data(box.dropFirst(nonceLength))
        do {
            let opened = try key.withUnsafeBytes { key in
                try nonce.withUnsafeBytes { nonce in
                    try sealed.withUnsafeBytes { sealed in
                        try aad.withUnsafeBytes { aad in
                            try AESGCMCipher.open(key: key, nonce: nonce, sealed: sealed, aad: aad)
                        }
                    }
                }
            }
            return opened.withUnsafeBytes { Data($0) }
        } catch {
            throw SyncError(.refused, "a sealed value does not authenticate")
        }
    }

    /// SHA-256 of `data`.
    static func sha256(_ data: Data) throws -> Data {
        try data.withUnsafeBytes { try OpenSSL.digest("SHA256", $0) }
    }

    /// `data` as lower-case hexadecimal digits (a digest compared as text).
    static func hex<Bytes: Collection<UInt8>>(_ data: Bytes) -> String {
        String(unsafeUninitializedCapacity: data.count * 2) { text in
            var index = 0
            for byte in data {
                text[index] = hexDigits[Int(byte >> 4)]
                text[index + 1] = hexDigits[Int(byte & 0x0f)]
                index += 2
            }
            return index
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The bytes of lower-case or upper-case hexadecimal digits; nil when `text` is not that.
    static func bytes(hex text: String) -> Data? {
        var text = text
        return text.withUTF8 { PostgresRows.hexBytes($0) }
    }

    /// Appends to `bytes` the `count` bytes that `text`'s hexadecimal digits (either case) spell,
    /// without making a `Data` of them; false, with nothing appended, when `text` is not exactly
    /// that many bytes' digits.
    static func appendBytes(hex text: String, count: Int, to bytes: inout [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { digits in
            guard digits.count == 2 * count else { return false }
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: count))
            let decoded = bytes.withUnsafeMutableBufferPointer { out in
                for index in 0..<count {
                    guard let high = PostgresRows.hexValue(digits[2 * index]), let low = PostgresRows.hexValue(digits[2 * index + 1])
                    else { return false }
                    out[start + index] = high << 4 | low
                }
                return true
            }
            if !decoded { bytes.removeSubrange(start...) }
            return decoded
        }
    }

    /// HKDF-SHA256 of `key` for `purpose`, 32 bytes.
    static func derive(_ key: Data, purpose: String) throws -> Data {
        let derived = try key.withUnsafeBytes {
            try OpenSSL.hkdfSHA256(key: $0, salt: [], info: Array(purpose.utf8), length: keyLength)
        }
        return derived.withUnsafeBytes { Data($0) }
    }

    /// HMAC-SHA256 of `message` under `key`.
    static func authenticationCode(_ message: Data, key: Data) throws -> Data {
        try key.withUnsafeBytes { key in try message.withUnsafeBytes { try OpenSSL.hmacSHA256(key: key, message: $0) } }
    }

    /// Whether two codes are equal, in constant time.
    static func equal(_ left: Data, _ right: Data) -> Bool {
        left.withUnsafeBytes { left in right.withUnsafeBytes { OpenSSL.constantTimeEqual(left, $0) } }
    }

    /// scrypt of `secret` with `salt` at cost 2^`log2N` (r = 8, p = 1), 32 bytes.
    static func stretch(_ secret: Data, salt: Data, log2N: Int) throws -> Data {
        guard (10...20).contains(log2N) else { throw SyncError(.refused, "the escrow's cost is out of range") }
        let derived = try secret.withUnsafeBytes { secret in
            try salt.withUnsafeBytes { salt in
                try OpenSSL.scrypt(password: secret, salt: salt, log2N: log2N, r: 8, p: 1, length: keyLength)
            }
        }
        return derived.withUnsafeBytes { Data($0) }
    }

    /// `plaintext` followed by 0x80 and zeros up to the next bucket: 256 bytes, then each power
    /// of two (so a record's length tells only which bucket its item falls in).
    static func pad(_ plaintext: Data) -> Data {
        var bucket = smallestBucket
        while bucket < plaintext.count + 1 { bucket *= 2 }
        var padded = plaintext
        padded.append(0x80)
        padded.append(Data(count: bucket - padded.count))
        return padded
    }

    /// The plaintext `pad` padded.
    ///
    /// - Throws: `SyncError.refused` when the padding is malformed.
    static func unpad(_ padded: Data) throws -> Data {
        guard let marker = padded.lastIndex(where: { $0 != 0 }), padded[marker] == 0x80 else {
            throw SyncError(.refused, "a record's padding is malformed")
        }
        return Data(padded[padded.startIndex..<marker])
    }
}

/// The associated data binding a sealed value to where it belongs: a purpose label, then
/// identifiers and numbers in fixed-width encodings (UUIDs as 16 bytes, integers as 8
/// little-endian bytes), so no two different contexts encode alike.
struct AssociatedData {
    /// The bytes so far (kept as an array: appending small pieces to `Data` costs more).
    private var buffer: [UInt8] = []

    /// The associated data.
    var bytes: Data { Data(buffer) }

    /// Associated data starting with `label` (length-prefixed).
    init(_ label: String) {
        buffer.reserveCapacity(128)
        append(label)
    }

    /// Appends a UUID's 16 bytes.
    mutating func append(_ uuid: UUID) {
        withUnsafeBytes(of: uuid.uuid) { buffer.append(contentsOf: $0) }
    }

    /// Appends an integer as 8 little-endian bytes.
    mutating func append(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { buffer.append(contentsOf: $0) }
    }

    /// Appends bytes, length-prefixed.
    mutating func append(_ data: Data) {
        append(Int64(data.count))
        buffer.append(contentsOf: data)
    }

    /// Appends text, length-prefixed.
    mutating func append(_ text: String) {
        append(Int64(text.utf8.count))
        buffer.append(contentsOf: text.utf8)
    }
}
