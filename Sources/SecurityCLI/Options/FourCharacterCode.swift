/// A four-character code (`FourCharCode`) given on the command line: a creator (`-c`), type
/// (`-C`), protocol (`-r`) or authentication type (`-t`).
struct FourCharacterCode: Equatable, Sendable {
    /// The four characters as typed.
    let text: String

    /// The bytes packed big-endian (`"abcd"` → 0x61626364), as Apple stores creators and types.
    var packed: UInt32 {
        text.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// Parses `text`, which must be exactly four bytes long.
    ///
    /// - Throws: `ToolError.failed(1)` with macOS's message, suggesting a trailing space for a
    ///   three-character code (`"ftp "`).
    init(parsing text: String) throws {
        let length = text.utf8.count
        guard length == 4 else {
            var message = "Error: four-character types must be exactly 4 characters long.\n"
            if length == 3 {
                message += "(Try \"\(text) \" instead of \"\(text)\")\n"
            }
            throw ToolError.failed(result: 1, message: message)
        }
        self.text = text
    }
}
