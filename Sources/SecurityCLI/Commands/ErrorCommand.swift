import Security

/// `error <code...>`: one line per code, `Error: 0x<8 uppercase hex digits> <decimal> <message>`,
/// with the message from `SecCopyErrorMessageString`.
///
/// Codes are read as `strtoul(…, 0)` reads them (decimal, `0x` hex, leading-`0` octal, an
/// optional sign) and truncated to 32 bits, so `-25300` and `0xFFFF9D2C` are the same code. Like
/// macOS's tool the command's result is 1 even when every code printed; a word that is not a
/// number (which macOS would print as code 0) is bad usage here.
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
            guard let code = Self.parseCode(word) else {
                throw ToolError.usage(reason: "error: \"\(word)\" is not an error code")
            }
            lines += Self.line(for: code)
        }
        invocation.console.output(lines)
        return 1
    }

    /// The line printed for `code`.
    static func line(for code: OSStatus) -> String {
        let hex = ByteFormat.upperHex(ByteFormat.bigEndianBytes(UInt32(bitPattern: code)))
        return "Error: 0x\(hex) \(code) \(ToolError.text(for: code))\n"
    }

    /// A code in `strtoul`'s base-0 syntax, truncated to 32 bits; nil if `word` is not a number.
    static func parseCode(_ word: String) -> OSStatus? {
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
        guard !digits.isEmpty, let magnitude = UInt64(digits, radix: radix) else { return nil }
        let value = negative ? 0 &- magnitude : magnitude
        return OSStatus(truncatingIfNeeded: value)
    }
}
