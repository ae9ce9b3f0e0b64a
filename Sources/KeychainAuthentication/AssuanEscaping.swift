/// Assuan's percent-escaping: the line protocol carries one command or response per line, so a
/// line break, a carriage return and `%` itself travel as `%XX` (two hexadecimal digits), and so
/// does every other control character.
package enum AssuanEscaping {
    /// The longest line Assuan accepts, including the command and the line feed.
    package static let maximumLineLength = 1000

    /// `text` escaped for a command argument, cut (at a character boundary, never inside an
    /// escape) so that the whole line, `command` and a space included, fits `maximumLineLength`.
    package static func argument(_ text: String, after command: String) -> String {
        let budget = maximumLineLength - command.utf8.count - 2
        var escaped = ""
        var used = 0
        for character in text {
            let encoded = escapedUTF8(character)
            guard used + encoded.utf8.count <= budget else { break }
            escaped += encoded
            used += encoded.utf8.count
        }
        return escaped
    }

    /// One character escaped: control characters and `%` as `%XX`, the rest unchanged.
    private static func escapedUTF8(_ character: Character) -> String {
        let text = String(character)
        guard text.utf8.contains(where: needsEscape) else { return text }
        // Only ASCII bytes need escaping; a character holding one is made of ASCII scalars.
        return text.unicodeScalars.map { scalar in
            scalar.isASCII && needsEscape(UInt8(scalar.value))
                ? "%" + hexDigits(UInt8(scalar.value)) : String(scalar)
        }.joined()
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "%") || byte == 0x7F
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    /// The value of one hexadecimal digit, or nil.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Decodes the `%XX` escapes of `bytes`, handing each decoded byte to `emit` (so a secret is
    /// decoded straight into its destination, never into an intermediate copy).
    ///
    /// - Returns: false when an escape is malformed (a `%` not followed by two hexadecimal digits).
    package static func unescape(_ bytes: UnsafeRawBufferPointer, _ emit: (UInt8) -> Void) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                else { return false }
                emit(high << 4 | low)
                index += 3
            } else {
                emit(byte)
                index += 1
            }
        }
        return true
    }

    /// `text` with its `%XX` escapes decoded (for responses that carry no secret).
    package static func unescaped(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        let valid = Array(text.utf8).withUnsafeBytes { unescape($0) { bytes.append($0) } }
        return valid ? String(decoding: bytes, as: UTF8.self) : String(text)
    }
}
