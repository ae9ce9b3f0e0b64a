/// A D-Bus type: one complete type of a signature.
///
/// Every type knows its signature text and its alignment in the marshalling: 1 for `y`, `g`
/// and `v`; 2 for `n` and `q`; 4 for `b`, `i`, `u`, `s`, `o` and arrays; 8 for `x`, `t`, `d`,
/// structures and dictionary entries. Unix file descriptors (`h`) are not supported: this client
/// never negotiates descriptor passing, so a type that names one is refused.
package indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double, string, objectPath, signature
    /// An array of elements of one type (`a…`).
    case array(DBusType)
    /// A structure of at least one field (`(…)`).
    case structure([DBusType])
    /// A dictionary entry, only as an array's element: a basic key type and any value type (`{…}`).
    case dictEntry(DBusType, DBusType)
    /// A value carrying its own type (`v`).
    case variant

    /// The type's signature text.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element): "a" + element.signature
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        }
    }

    package var description: String { signature }

    /// The boundary (in bytes, from the start of the message) a value of this type starts on.
    package var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .array: 4
        case .int64, .uint64, .double, .structure, .dictEntry: 8
        }
    }

    /// Whether this is a basic type (every type but arrays, structures, entries and variants):
    /// only basic types may be dictionary keys.
    package var isBasic: Bool {
        switch self {
        case .array, .structure, .dictEntry, .variant: false
        default: true
        }
    }
}
