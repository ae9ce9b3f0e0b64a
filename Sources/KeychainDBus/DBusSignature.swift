/// Parsing of signature text into types, with the specification's limits: at most 255 bytes,
/// at most 32 nested arrays and 32 nested structures (dictionary entries count as structures),
/// structures with at least one field, dictionary entries only as array elements with a basic
/// key and exactly one value type.
package enum DBusSignature {
    /// The longest signature, in bytes.
    package static let maximumLength = 255
    /// The deepest nesting of arrays, and separately of structures, in one signature.
    package static let maximumNesting = 32

    /// The types of `text`, a sequence of complete types (a message body's signature).
    ///
    /// - Throws: `DBusError.invalidMessage` when the text is not a valid signature.
    package static func parse(_ text: String) throws -> [DBusType] {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength else { throw DBusError.invalidMessage("a signature is longer than 255 bytes") }
        var parser = Parser(bytes: bytes)
        var types: [DBusType] = []
        while parser.offset < bytes.count {
            types.append(try parser.completeType(arrays: 0, structures: 0))
        }
        return types
    }

    /// The one complete type `text` names (a variant's signature).
    ///
    /// - Throws: `DBusError.invalidMessage` unless the text is exactly one complete type.
    package static func parseSingle(_ text: String) throws -> DBusType {
        let types = try parse(text)
        guard types.count == 1 else { throw DBusError.invalidMessage("a variant's signature is not one complete type") }
        return types[0]
    }

    private struct Parser {
        let bytes: [UInt8]
        var offset = 0

        mutating func next() throws -> UInt8 {
            guard offset < bytes.count else { throw DBusError.invalidMessage("a signature ends inside a type") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func completeType(arrays: Int, structures: Int, inArray: Bool = false) throws -> DBusType {
            let code = try next()
            switch code {
            case UInt8(ascii: "y"): return .byte
            case UInt8(ascii: "b"): return .boolean
            case UInt8(ascii: "n"): return .int16
            case UInt8(ascii: "q"): return .uint16
            case UInt8(ascii: "i"): return .int32
            case UInt8(ascii: "u"): return .uint32
            case UInt8(ascii: "x"): return .int64
            case UInt8(ascii: "t"): return .uint64
            case UInt8(ascii: "d"): return .double
            case UInt8(ascii: "s"): return .string
            case UInt8(ascii: "o"): return .objectPath
            case UInt8(ascii: "g"): return .signature
            case UInt8(ascii: "v"): return .variant
            case UInt8(ascii: "a"):
                guard arrays < maximumNesting else { throw DBusError.invalidMessage("arrays nest deeper than 32") }
                return .array(try completeType(arrays: arrays + 1, structures: structures, inArray: true))
            case UInt8(ascii: "("):
                guard structures < maximumNesting else { throw DBusError.invalidMessage("structures nest deeper than 32") }
                var fields: [DBusType] = []
                while offset < bytes.count, bytes[offset] != UInt8(ascii: ")") {
                    fields.append(try completeType(arrays: arrays, structures: structures + 1))
                }
                guard try next() == UInt8(ascii: ")") else { throw DBusError.invalidMessage("a structure is not closed") }
                guard !fields.isEmpty else { throw DBusError.invalidMessage("a structure has no field") }
                return .structure(fields)
            case UInt8(ascii: "{"):
                guard inArray else { throw DBusError.invalidMessage("a dictionary entry outside an array") }
                guard structures < maximumNesting else { throw DBusError.invalidMessage("structures nest deeper than 32") }
                let key = try completeType(arrays: arrays, structures: structures + 1)
                guard key.isBasic else { throw DBusError.invalidMessage("a dictionary key is not a basic type") }
                let value = try completeType(arrays: arrays, structures: structures + 1)
                guard try next() == UInt8(ascii: "}") else {
                    throw DBusError.invalidMessage("a dictionary entry does not hold exactly a key and a value")
                }
                return .dictEntry(key, value)
            case UInt8(ascii: "h"):
                throw DBusError.invalidMessage("a Unix file descriptor type, which this client does not negotiate")
            default:
                throw DBusError.invalidMessage("a signature holds an unknown type code")
            }
        }
    }
}
