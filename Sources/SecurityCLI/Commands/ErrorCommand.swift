import Security

/// `error <code...>`: one line per code, `Error: 0x<8 uppercase hex digits> <decimal> <message>`,
/// with the message from `SecCopyErrorMessageString`.
///
/// Codes are read as `strtoul(…, 0)` reads them (decimal, `0x` hex, leading-`0` octal, an
/// optional sign) and taken as 32 bits, so `-25300` and `0xFFFF9D2C` are the same code. Like
/// macOS's tool the command's result is 1 even when every code printed. A word that is not a
/// number (which macOS would print as code 0), or a number that does not fit in 32 bits (which
/// macOS would truncate: -2147483648 through 4294967295 fit), is bad usage here.
struct ErrorCommand: CommandDefinition {
    let name = "error"
    let usage = """
        <error code(s)...>
        Print the message for each security error code, given in decimal or hex
        (1234 or 0x1234); separate several codes with spaces.
        """
    let summary = "Display a descriptive message for the given error code(s)."
    let options = OptionParser.operandsOnly

    func run(_ invocation: Invocation) throws -> Int32 {
        if let element = invocation.scan.elements.first { throw invocation.usageError(for: element) }
        let words = invocation.scan.operands.filter { $0 != "error" }
        guard !words.isEmpty else { throw ToolError.usage(reason: nil) }
        var lines = ""
        for word in words {
            lines += Self.line(for: try Self.code(word))
        }
        invocation.console.output(lines)
        return 1
    }

    /// The line printed for `code`.
    static func line(for code: OSStatus) -> String {
        let hex = ByteFormat.upperHex(ByteFormat.bigEndianBytes(UInt32(bitPattern: code)))
        return "Error: 0x\(hex) \(code) \(ToolError.text(for: code))\n"
    }

    /// A code in `strtoul`'s base-0 syntax; nil if `word` is not one or does not fit in 32 bits.
    static func parseCode(_ word: String) -> OSStatus? {
        try? code(word)
    }

    /// A code in `strtoul`'s base-0 syntax: a signed 32-bit value, or an unsigned one taken as
    /// its bit pattern (`4294967295` is -1).
    ///
    /// - Throws: bad usage naming the word when it is not a number or does not fit in 32 bits.
    static func code(_ word: String) throws -> OSStatus {
        var digits = Substring(word)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        let radix: Int
        if digits.lowercased().hasPrefix("0x") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.hasPrefix("0") && digits.count > 1 {
            radix = 8
            digits = digits.dropFirst()
        } else {
            radix = 10
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.hexDigitValue ?? radix) < radix }) else {
            throw ToolError.usage(reason: "error: \"\(word)\" is not an error code")
        }
        let limit = negative ? UInt64(Int32.max) + 1 : UInt64(UInt32.max)
        guard let magnitude = UInt64(digits, radix: radix), magnitude <= limit else {
            throw ToolError.usage(reason: "error: \"\(word)\" is out of range (codes are 32-bit: -2147483648 through 4294967295)")
        }
        return negative ? Int32(truncatingIfNeeded: 0 &- Int64(magnitude)) : OSStatus(bitPattern: UInt32(magnitude))
    }
}
