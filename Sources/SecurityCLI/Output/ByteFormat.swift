/// macOS's rules for printing bytes in item dumps and password lines (as `security` prints them).
enum ByteFormat {
    /// Whether `byte` prints as itself in a quoted dump value: printable ASCII except backslash.
    static func isQuotable(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "\\")
    }

    /// A dump value (`print_buffer`): `"text"` when every byte is quotable; otherwise
    /// `0x<UPPERHEX>` followed by one space, and when some bytes are quotable also a second
    /// space and the quoted form with the others as `\ooo` octal escapes. No bytes print nothing.
    static func dumpValue(_ bytes: [UInt8]) -> String {
        let quotable = bytes.contains(where: isQuotable)
        let needsHex = bytes.contains { !isQuotable($0) }
        var text = ""
        if needsHex {
            text += "0x" + upperHex(bytes) + " "
            if quotable { text += " " }
        }
        if quotable {
            text += "\"" + escaped(bytes) + "\""
        }
        return text
    }

    /// A 32-bit value as its 4 big-endian bytes in the dump-value form (`print_uint32`): tags such
    /// as `"acct"`, numbers such as `0x00000000 `.
    static func dumpValue(_ number: UInt32) -> String {
        dumpValue(bigEndianBytes(number))
    }

    /// The 4 big-endian bytes of `number`.
    static func bigEndianBytes(_ number: UInt32) -> [UInt8] {
        [UInt8(number >> 24), UInt8(number >> 16 & 0xFF), UInt8(number >> 8 & 0xFF), UInt8(number & 0xFF)]
    }

    /// The password line of `find-*-password -w`: the bytes as they are when every byte is
    /// printable ASCII (`isprint`), otherwise every byte as two lowercase hex digits.
    static func passwordOnly(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
            return Array(lowerHex(bytes).utf8)
        }
        return bytes
    }

    /// Uppercase hex digits.
    static func upperHex(_ bytes: [UInt8]) -> String { hex(bytes, digits: Array("0123456789ABCDEF".utf8)) }

    /// Lowercase hex digits.
    static func lowerHex(_ bytes: [UInt8]) -> String { hex(bytes, digits: Array("0123456789abcdef".utf8)) }

    private static func hex(_ bytes: [UInt8], digits: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func escaped(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            if isQuotable(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "0") + (byte >> 6 & 7))
                out.append(UInt8(ascii: "0") + (byte >> 3 & 7))
                out.append(UInt8(ascii: "0") + (byte & 7))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
