/// One word of a command line exactly as the tool was given it: an argument of the process, or a
/// word of a `security -i` line. Its bytes need not be UTF-8: a password is stored as these
/// bytes, and a value that must be text (an attribute, a name, a path) is refused when they are
/// not UTF-8, never repaired.
struct Argument: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The word's bytes.
    let bytes: [UInt8]

    /// A word of these bytes.
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A word of `text`'s UTF-8 bytes.
    init(_ text: String) { bytes = Array(text.utf8) }

    /// A word of `value`'s UTF-8 bytes.
    init(stringLiteral value: String) { self.init(value) }

    /// The word as text; nil when its bytes are not UTF-8.
    var text: String? { String(validating: bytes, as: UTF8.self) }

    /// The word for messages and the `-v` echo: bytes that are not UTF-8 shown as U+FFFD.
    var displayText: String { String(decoding: bytes, as: UTF8.self) }
}
