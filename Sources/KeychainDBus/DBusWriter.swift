/// Marshals values in little-endian byte order, each aligned to its type's boundary counted from
/// the start of the message (padding bytes are zero).
///
/// Strings are a `UInt32` byte count, the UTF-8 bytes and a NUL; signatures a byte count, the
/// bytes and a NUL; an array is its `UInt32` byte length, padding to the element alignment (not
/// counted in the length), then the elements; a variant is its value's signature then the value.
/// A value that breaks a rule (an element of another type than its array's, a string holding NUL,
/// an invalid object path or signature, an array over 64 MiB) throws rather than writing bytes a
/// peer would refuse.
package struct DBusWriter {
    /// The bytes written so far; offset 0 is the start of the message.
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// Adds zero bytes up to the next multiple of `alignment`.
    package mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    private mutating func integer<T: FixedWidthInteger>(_ value: T) {
        pad(to: MemoryLayout<T>.size)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes `value` at the current position.
    package mutating func write(_ value: DBusValue, depth: Int = 0) throws {
        guard depth <= DBusReader.maximumDepth else { throw DBusError.invalidMessage("containers nest deeper than 64") }
        switch value {
        case .byte(let v): bytes.append(v)
        case .boolean(let v): integer(UInt32(v ? 1 : 0))
        case .int16(let v): integer(v)
        case .uint16(let v): integer(v)
        case .int32(let v): integer(v)
        case .uint32(let v): integer(v)
        case .int64(let v): integer(v)
        case .uint64(let v): integer(v)
        case .double(let v): integer(v.bitPattern)
        case .string(let text):
            try writeString(text)
        case .objectPath(let path):
            guard DBusName.isValidObjectPath(path) else { throw DBusError.invalidMessage("an invalid object path") }
            try writeString(path)
        case .signature(let signature):
            _ = try DBusSignature.parse(signature)
            writeSignature(signature)
        case .array(let element, let elements):
            _ = try DBusSignature.parse(DBusType.array(element).signature)
            pad(to: 4)
            let lengthOffset = bytes.count
            integer(UInt32(0))
            pad(to: element.alignment)
            let start = bytes.count
            for item in elements {
                guard item.type == element else { throw DBusError.invalidMessage("an array element of another type") }
                try write(item, depth: depth + 1)
            }
            let length = bytes.count - start
            guard length <= DBusReader.maximumArrayLength else { throw DBusError.invalidMessage("an array over 64 MiB") }
            withUnsafeBytes(of: UInt32(length).littleEndian) { raw in
                for index in 0..<4 { bytes[lengthOffset + index] = raw[index] }
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw DBusError.invalidMessage("a structure has no field") }
            pad(to: 8)
            for field in fields { try write(field, depth: depth + 1) }
        case .dictEntry(let key, let value):
            guard key.type.isBasic else { throw DBusError.invalidMessage("a dictionary key is not a basic type") }
            pad(to: 8)
            try write(key, depth: depth + 1)
            try write(value, depth: depth + 1)
        case .variant(let inner):
            let signature = inner.type.signature
            _ = try DBusSignature.parseSingle(signature)
            writeSignature(signature)
            try write(inner, depth: depth + 1)
        }
    }

    private mutating func writeString(_ text: String) throws {
        let utf8 = Array(text.utf8)
        guard !utf8.contains(0) else { throw DBusError.invalidMessage("a string holds a NUL byte") }
        guard utf8.count <= DBusReader.maximumArrayLength else { throw DBusError.invalidMessage("a string over 64 MiB") }
        integer(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    /// A signature already checked (at most 255 bytes).
    private mutating func writeSignature(_ signature: String) {
        let utf8 = Array(signature.utf8)
        bytes.append(UInt8(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }
}
