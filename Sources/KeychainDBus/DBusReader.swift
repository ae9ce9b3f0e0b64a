/// Unmarshals values from untrusted bytes, in the byte order the message declares.
///
/// Every rule is checked and a broken one throws `DBusError.invalidMessage`; no input traps:
/// reads never run past `end`, padding must be zero bytes, booleans 0 or 1, strings valid UTF-8
/// without NUL and NUL-terminated, object paths and signatures valid, an array's byte length at
/// most 64 MiB and its elements ending exactly at that length, and containers (arrays,
/// structures, dictionary entries, variants) nest at most 64 deep.
package struct DBusReader {
    /// The most bytes an array (or string) may hold.
    package static let maximumArrayLength = 1 << 26
    /// The deepest nesting of containers in a value.
    package static let maximumDepth = 64

    private let bytes: [UInt8]
    private let bigEndian: Bool
    /// The next byte to read; 0 is the start of the message (alignment counts from there).
    package private(set) var offset: Int
    /// The first byte not to read.
    package let end: Int

    /// A reader over `bytes[offset..<end]`, where `bytes[0]` is the start of the message.
    package init(_ bytes: [UInt8], bigEndian: Bool, offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    /// Whether every byte up to `end` was read.
    package var isAtEnd: Bool { offset >= end }

    /// Skips padding up to the next multiple of `alignment`; the padding must be zero.
    package mutating func align(to alignment: Int) throws {
        let padded = (offset + alignment - 1) / alignment * alignment
        guard padded <= end else { throw DBusError.invalidMessage("padding runs past the end") }
        while offset < padded {
            guard bytes[offset] == 0 else { throw DBusError.invalidMessage("a padding byte is not zero") }
            offset += 1
        }
    }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - offset else { throw DBusError.invalidMessage("a value runs past the end") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try align(to: MemoryLayout<T>.size)
        let slice = try take(MemoryLayout<T>.size)
        let littleEndian = slice.reversed().reduce(T.zero) { $0 << 8 | T(truncatingIfNeeded: $1) }
        return bigEndian ? littleEndian.byteSwapped : littleEndian
    }

    /// The next value of `type`.
    package mutating func read(_ type: DBusType, depth: Int = 0) throws -> DBusValue {
        guard depth <= Self.maximumDepth else { throw DBusError.invalidMessage("containers nest deeper than 64") }
        switch type {
        case .byte: return .byte(try take(1).first!)
        case .boolean:
            switch try integer(UInt32.self) {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            default: throw DBusError.invalidMessage("a boolean is neither 0 nor 1")
            }
        case .int16: return .int16(try integer(Int16.self))
        case .uint16: return .uint16(try integer(UInt16.self))
        case .int32: return .int32(try integer(Int32.self))
        case .uint32: return .uint32(try integer(UInt32.self))
        case .int64: return .int64(try integer(Int64.self))
        case .uint64: return .uint64(try integer(UInt64.self))
        case .double: return .double(Double(bitPattern: try integer(UInt64.self)))
        case .string: return .string(try readString())
        case .objectPath:
            let path = try readString()
            guard DBusName.isValidObjectPath(path) else { throw DBusError.invalidMessage("an invalid object path") }
            return .objectPath(path)
        case .signature:
            let signature = try readSignature()
            _ = try DBusSignature.parse(signature)
            return .signature(signature)
        case .array(let element):
            let length = Int(try integer(UInt32.self))
            guard length <= Self.maximumArrayLength else { throw DBusError.invalidMessage("an array over 64 MiB") }
            try align(to: element.alignment)
            guard length <= end - offset else { throw DBusError.invalidMessage("an array runs past the end") }
            let arrayEnd = offset + length
            var elements: [DBusValue] = []
            while offset < arrayEnd {
                elements.append(try read(element, depth: depth + 1))
            }
            guard offset == arrayEnd else { throw DBusError.invalidMessage("an array's elements overrun its length") }
            return .array(element, elements)
        case .structure(let fields):
            try align(to: 8)
            return .structure(try fields.map { try read($0, depth: depth + 1) })
        case .dictEntry(let key, let value):
            try align(to: 8)
            return .dictEntry(try read(key, depth: depth + 1), try read(value, depth: depth + 1))
        case .variant:
            let inner = try DBusSignature.parseSingle(try readSignature())
            return .variant(try read(inner, depth: depth + 1))
        }
    }

    private mutating func readString() throws -> String {
        let length = Int(try integer(UInt32.self))
        guard length <= Self.maximumArrayLength else { throw DBusError.invalidMessage("a string over 64 MiB") }
        return try text(length)
    }

    private mutating func readSignature() throws -> String {
        try text(Int(try take(1).first!))
    }

    /// `length` bytes of UTF-8 without NUL, then a NUL.
    private mutating func text(_ length: Int) throws -> String {
        guard length < end - offset else { throw DBusError.invalidMessage("a string runs past the end") }
        let content = try take(length)
        guard try take(1).first == 0 else { throw DBusError.invalidMessage("a string is not NUL-terminated") }
        guard !content.contains(0) else { throw DBusError.invalidMessage("a string holds a NUL byte") }
        guard let text = String(validating: content, as: UTF8.self) else {
            throw DBusError.invalidMessage("a string is not valid UTF-8")
        }
        return text
    }
}
