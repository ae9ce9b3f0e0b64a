/// A D-Bus value, typed: one case per type code of the marshalling.
///
/// An array carries its element type, so an empty array still has a signature; a variant carries
/// any value (its signature is the value's). `type` gives a value's `DBusType`; the writer checks
/// that every element of an array has the element type it names.
package indirect enum DBusValue: Hashable, Sendable, CustomStringConvertible {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array of values of `element` type.
    case array(DBusType, [DBusValue])
    case structure([DBusValue])
    /// A dictionary entry (only inside an array).
    case dictEntry(DBusValue, DBusValue)
    case variant(DBusValue)

    /// The value's type.
    package var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .array(let element, _): .array(element)
        case .structure(let fields): .structure(fields.map(\.type))
        case .dictEntry(let key, let value): .dictEntry(key.type, value.type)
        case .variant: .variant
        }
    }

    /// A dictionary (`a{…}`) of `entries`, keys of type `key`, values of type `value`.
    package static func dictionary(key: DBusType, value: DBusType, _ entries: [(DBusValue, DBusValue)]) -> DBusValue {
        .array(.dictEntry(key, value), entries.map { .dictEntry($0.0, $0.1) })
    }

    /// The text of a string, object path or signature; nil for other values.
    package var text: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    /// The value of a boolean; nil for other values.
    package var bool: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The value of an unsigned 32-bit integer; nil for other values.
    package var uint32: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }

    /// The elements of an array, or the fields of a structure; nil for other values.
    package var elements: [DBusValue]? {
        switch self {
        case .array(_, let elements), .structure(let elements): elements
        default: nil
        }
    }

    /// The value inside a variant; nil for other values.
    package var variantValue: DBusValue? {
        if case .variant(let value) = self { return value }
        return nil
    }

    /// The entries of a dictionary whose keys are strings (`a{s…}`); nil for other values.
    package var stringKeyedEntries: [String: DBusValue]? {
        guard case .array(.dictEntry(.string, _), let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for case .dictEntry(.string(let key), let value) in entries { result[key] = value }
        return result
    }

    package var description: String {
        switch self {
        case .byte(let v): "byte \(v)"
        case .boolean(let v): "\(v)"
        case .int16(let v): "int16 \(v)"
        case .uint16(let v): "uint16 \(v)"
        case .int32(let v): "int32 \(v)"
        case .uint32(let v): "uint32 \(v)"
        case .int64(let v): "int64 \(v)"
        case .uint64(let v): "uint64 \(v)"
        case .double(let v): "double \(v)"
        case .string(let v): "\"\(v)\""
        case .objectPath(let v): "objectpath \(v)"
        case .signature(let v): "signature \"\(v)\""
        case .array(let type, let elements): "a\(type.signature)[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .dictEntry(let key, let value): "{\(key): \(value)}"
        case .variant(let value): "<\(value)>"
        }
    }
}
