import Foundation
import KeychainCrypto

/// Builds a `keychaind` message: big-endian fixed-width integers, 32-bit length-prefixed bytes
/// and UTF-8 text, a presence byte before optional values and a 32-bit count before arrays
/// (the layout `docs/keychaind-protocol.md` describes; `WireReader` reads it back).
///
/// A message can hold secrets: the bytes are kept in a `WireBuffer`, which zeroes every block it
/// frees; `wipe()` zeroes what was written once it has been sent.
public struct WireWriter: Sendable {
    private let buffer: WireBuffer

    /// The bytes written so far, as a copy (which the caller zeroes if it holds a secret).
    public var data: Data { buffer.withUnsafeBytes { Data($0) } }

    /// The number of bytes written so far.
    public var count: Int { buffer.count }

    /// An empty writer.
    public init() { buffer = WireBuffer() }

    /// A writer whose output starts with `prefix` (a frame header to patch later).
    init(prefix: Data) {
        buffer = WireBuffer()
        prefix.withUnsafeBytes { buffer.append($0) }
    }

    /// Lends the bytes written to `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeBytes(body)
    }

    /// Appends one byte.
    public mutating func u8(_ value: UInt8) { buffer.append(value) }

    /// Appends a flag as one byte, 1 or 0.
    public mutating func bool(_ value: Bool) { buffer.append(value ? 1 : 0) }

    /// Appends a big-endian fixed-width integer.
    public mutating func integer<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { buffer.append($0) }
    }

    /// Appends a signed count or size as 8 bytes.
    public mutating func int(_ value: Int) { integer(Int64(value)) }

    /// Appends a floating-point value as the 8 big-endian bytes of its bit pattern (exact,
    /// NaN and infinities included).
    public mutating func double(_ value: Double) { integer(value.bitPattern) }

    /// Appends a 32-bit length, then the bytes.
    public mutating func bytes<Bytes: ContiguousBytes>(_ value: Bytes) {
        value.withUnsafeBytes { bytes in
            // A field past 4 GiB is written with a wrong length, and its frame is refused as too large.
            integer(UInt32(clamping: bytes.count))
            buffer.append(bytes)
        }
    }

    /// Appends a 32-bit length, then the text's UTF-8.
    public mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }

    /// Appends 0 for nil, or 1 then the value as `write` writes it.
    public mutating func optional<T>(_ value: T?, _ write: (inout WireWriter, T) throws -> Void) rethrows {
        guard let value else { return u8(0) }
        u8(1)
        try write(&self, value)
    }

    /// Appends a 32-bit count, then each element as `write` writes it.
    public mutating func array<T>(_ values: [T], _ write: (inout WireWriter, T) throws -> Void) rethrows {
        integer(UInt32(clamping: values.count))
        for value in values { try write(&self, value) }
    }

    /// Appends bytes as they are, without a length (a payload already encoded).
    mutating func raw(_ value: Data) { value.withUnsafeBytes { buffer.append($0) } }

    /// Overwrites what was written with zeroes (a message that carried a secret, once sent).
    public mutating func wipe() { buffer.wipe() }

    /// Overwrites 4 bytes at `offset` with a big-endian `value` (a frame's length).
    mutating func patch(_ value: UInt32, at offset: Int) {
        Swift.withUnsafeBytes(of: value.bigEndian) { buffer.overwrite(at: offset, with: $0) }
    }
}
