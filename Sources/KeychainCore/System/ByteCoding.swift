import Foundation

/// Builds the big-endian binary layouts of the keychain's own files (keybag, device key, backup).
struct ByteWriter {
    /// The bytes written so far.
    private(set) var data = Data()

    /// Appends one byte.
    mutating func u8(_ value: UInt8) { data.append(value) }

    /// Appends a big-endian integer.
    mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    /// Appends bytes as they are (for fields of fixed length).
    mutating func raw(_ bytes: Data) { data.append(bytes) }

    /// Appends a 32-bit length, then the bytes.
    mutating func lengthPrefixed(_ bytes: Data) {
        integer(UInt32(bytes.count))
        data.append(bytes)
    }

    /// Overwrites what was written with zeroes (for buffers that held key material).
    mutating func wipe() { data.wipe() }
}

/// A bounds-checked cursor over a file's bytes: any read past the end, or any length that does
/// not fit, throws `errSecDecode`, so a damaged file can never crash the process.
struct ByteReader {
    private let data: Data
    private var offset: Int

    /// A reader over `data` from its start.
    init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { offset == data.endIndex }

    /// How many bytes were read so far.
    var consumed: Int { offset - data.startIndex }

    /// The next `count` bytes.
    mutating func raw(_ count: Int) throws -> Data {
        guard count >= 0, count <= data.endIndex - offset else {
            throw KeychainError(.decode, "a keychain file is truncated")
        }
        defer { offset += count }
        return Data(data[offset..<(offset + count)])
    }

    /// The next byte.
    mutating func u8() throws -> UInt8 { try raw(1).first! }

    /// The next big-endian integer.
    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try raw(MemoryLayout<T>.size).reduce(T.zero) { $0 << 8 | T($1) }
    }

    /// A 32-bit length, then that many bytes (at most `limit`).
    mutating func lengthPrefixed(limit: Int = 1 << 30) throws -> Data {
        let length = Int(try integer(UInt32.self))
        guard length <= limit else { throw KeychainError(.decode, "a length in a keychain file is out of range") }
        return try raw(length)
    }

    /// Throws unless every byte was read.
    func requireEnd() throws {
        guard isAtEnd else { throw KeychainError(.decode, "a keychain file has trailing bytes") }
    }
}
