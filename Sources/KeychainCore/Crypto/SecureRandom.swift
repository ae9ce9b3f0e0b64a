import Foundation

/// Random bytes from OpenSSL's CSPRNG (seeded from the kernel).
enum SecureRandom {
    /// Fills `buffer` with random bytes.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try OpenSSL.randomBytes(buffer)
    }

    /// `count` random bytes as `Data` (for values that are not secret: nonces, identifiers).
    static func data(count: Int) throws -> Data {
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { try fill($0) }
        return data
    }
}
