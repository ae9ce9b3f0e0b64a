import Foundation
import KeychainCrypto

/// Random bytes from OpenSSL's CSPRNG (seeded from the kernel).
enum SecureRandom {
    /// Fills `buffer` with random bytes.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try withEngineErrors { try OpenSSL.randomBytes(buffer) }
    }

    /// `count` random bytes as `Data` (for values that are not secret: nonces, identifiers).
    static func data(count: Int) throws -> Data {
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { try fill($0) }
        return data
    }
}

extension SecureBytes {
    /// `count` bytes from the system's CSPRNG.
    static func random(count: Int) throws -> SecureBytes {
        try SecureBytes(count: count) { try SecureRandom.fill($0) }
    }
}

/// Random bytes drawn from the CSPRNG in one call and handed out in pieces, for an operation
/// that needs several random values (an add: the item's UUID, its own key and three nonces).
/// Each call of OpenSSL's generator costs far more than the bytes it returns. The draw lives in
/// a buffer zeroed on release, and every byte is handed out once.
struct RandomDraw {
    private let bytes: SecureBytes
    private var offset = 0

    /// `count` random bytes.
    init(count: Int) throws {
        bytes = try SecureBytes.random(count: count)
    }

    /// The number of bytes an item's sealing takes: a nonce for its attributes and, with a
    /// secret, the item key and two nonces (`ItemSealer`).
    static func sealingCount(withSecret: Bool) -> Int {
        AESGCMCipher.nonceLength + (withSecret ? SymmetricKey.byteCount + 2 * AESGCMCipher.nonceLength : 0)
    }

    /// The next `count` bytes, for a value that is not secret (a nonce, an identifier).
    mutating func data(count: Int) -> Data {
        take(count) { Data($0) }
    }

    /// The next 32 bytes as a key.
    mutating func key() -> SecureBytes {
        take(SymmetricKey.byteCount) { SecureBytes(copying: $0) }
    }

    private mutating func take<T>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        precondition(offset + count <= bytes.count, "a random draw was used past its size")
        defer { offset += count }
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
    }
}
