import Foundation
import KeychainCore

/// Reads a `keychaind` message that `WireWriter` wrote, from untrusted bytes.
///
/// Every read is checked against the bytes left: a length or count larger than what remains
/// (or than `maximumArrayCount`) throws `WireError` before anything is allocated, text must be
/// valid UTF-8, presence and flag bytes must be 0 or 1, and `finish()` refuses trailing bytes. No
/// input makes it trap. The message's types are not recursive, so nesting is bounded by the
/// schema itself (an identity inside a result inside an array inside a response: depth 4) and
/// needs no counter.
///
/// Bytes read as data are copies the caller owns (a secret can be zeroed with `Data.wipe`).
public struct WireReader {
    /// The most elements an array may announce (also bounded by the bytes left, since every
    /// element takes at least one byte).
    public static let maximumArrayCount = 1 << 20

    private let data: Data
    private var offset: Int

    /// A reader over `data` from its start.
    public init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    /// How many bytes are left.
    public var remaining: Int { data.endIndex - offset }

    /// Throws `WireError.Kind.trailingBytes` unless every byte was read.
    public func finish() throws {
        guard remaining == 0 else { throw WireError(.trailingBytes, "bytes after the end of the message") }
    }

    /// Runs `body` over the next `count` bytes and moves past them.
    private mutating func take<R>(_ count: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard count >= 0, count <= remaining else { throw WireError(.truncated, "a field runs past the end of the message") }
        let start = offset - data.startIndex
        offset += count
        // The bytes borrowed in place: no `Data` slice is made per field.
        return try data.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[start..<(start + count)]))
        }
    }

    /// The next byte.
    public mutating func u8() throws -> UInt8 { try take(1) { $0[0] } }

    /// A flag byte: 0 or 1, anything else is refused.
    public mutating func bool() throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        default: throw WireError(.invalidValue, "a flag byte is neither 0 nor 1")
        }
    }

    /// The next big-endian fixed-width integer.
    public mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try take(MemoryLayout<T>.size) { $0.reduce(T.zero) { $0 << 8 | T($1) } }
    }

    /// A signed 8-byte count or size.
    public mutating func int() throws -> Int {
        guard let value = Int(exactly: try integer(Int64.self)) else {
            throw WireError(.invalidValue, "an integer does not fit this platform")
        }
        return value
    }

    /// A non-negative 8-byte count.
    public mutating func count() throws -> Int {
        let value = try int()
        guard value >= 0 else { throw WireError(.invalidValue, "a count is negative") }
        return value
    }

    /// A floating-point value from its 8-byte bit pattern.
    public mutating func double() throws -> Double { Double(bitPattern: try integer(UInt64.self)) }

    /// The 32-bit length that prefixes bytes or text, checked against the bytes left.
    private mutating func length() throws -> Int {
        let length = Int(try integer(UInt32.self))
        guard length <= remaining else { throw WireError(.truncated, "a length runs past the end of the message") }
        return length
    }

    /// A 32-bit length, then that many bytes, as a copy the caller owns, zeroed when the last
    /// `Data` sharing it is released (the bytes may be a secret, as the engine's results are).
    public mutating func bytes() throws -> Data {
        try take(try length()) { Data.zeroingCopy(of: $0) }
    }

    /// A 32-bit length, then that many bytes of UTF-8 text.
    public mutating func string() throws -> String {
        try take(try length()) { buffer in
            guard let text = String(validating: buffer, as: UTF8.self) else {
                throw WireError(.invalidUTF8, "text is not valid UTF-8")
            }
            return text
        }
    }

    /// A presence byte (0 or 1), then the value when present.
    public mutating func optional<T>(_ read: (inout WireReader) throws -> T) throws -> T? {
        try bool() ? try read(&self) : nil
    }

    /// A 32-bit count, then that many elements. The count is checked against
    /// `maximumArrayCount` and the bytes left before any element is read.
    public mutating func array<T>(_ read: (inout WireReader) throws -> T) throws -> [T] {
        let count = Int(try integer(UInt32.self))
        guard count <= Self.maximumArrayCount, count <= remaining else {
            throw WireError(.limitExceeded, "an array announces more elements than the message can hold")
        }
        var values: [T] = []
        for _ in 0..<count { values.append(try read(&self)) }
        return values
    }
}
