/// `security -i`: reads command lines from standard input and runs them until the input ends.
///
/// A line splits into words at white space (ASCII, as macOS's tool splits bytes); single or
/// double quotes group words and a backslash takes the next byte literally. Words keep the bytes
/// of the line, UTF-8 or not, as the words of a command line do. A command that fails prints
/// `<cmd>: returned <n>` on standard error unless `-q` was given. The result is the last
/// command's.
enum InteractiveMode {
    /// macOS reads at most this many words from a line.
    static let maximumWords = 32

    /// Runs the loop.
    static func run(console: any Console, prompt: String, quiet: Bool, execute: ([Argument]) -> Int32) -> Int32 {
        var result: Int32 = 0
        while let line = console.readCommandLine(prompt: prompt) {
            let words = split(line)
            result = execute(words)
            if result != 0 && !quiet, let word = words.first {
                console.writeError(word.bytes + Array(": returned \(result)\n".utf8))
            }
        }
        return result
    }

    /// Splits a command line given as text into words.
    static func split(_ line: String) -> [String] {
        split(Array(line.utf8)).map(\.displayText)
    }

    /// Splits a command line into words.
    static func split(_ line: [UInt8]) -> [Argument] {
        enum State { case between, word, wordEscape, quoted, quotedEscape }
        var words: [Argument] = []
        var current: [UInt8] = []
        var state = State.between
        var quote = doubleQuote
        for byte in line {
            switch state {
            case .between:
                if isWhitespace(byte) { continue }
                if byte == doubleQuote || byte == singleQuote {
                    quote = byte
                    state = .quoted
                } else if byte == backslash {
                    state = .wordEscape
                } else {
                    current.append(byte)
                    state = .word
                }
            case .word:
                if byte == backslash {
                    state = .wordEscape
                } else if isWhitespace(byte) {
                    words.append(Argument(current))
                    current = []
                    state = .between
                } else {
                    current.append(byte)
                }
            case .wordEscape:
                current.append(byte)
                state = .word
            case .quoted:
                if byte == backslash {
                    state = .quotedEscape
                } else if byte == quote {
                    words.append(Argument(current))
                    current = []
                    state = .between
                } else {
                    current.append(byte)
                }
            case .quotedEscape:
                current.append(byte)
                state = .quoted
            }
            if words.count >= maximumWords { return words }
        }
        if state != .between { words.append(Argument(current)) }
        return words
    }

    private static let doubleQuote = UInt8(ascii: "\"")
    private static let singleQuote = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\")

    /// Space, tab, newline, vertical tab, form feed, carriage return (`isspace` in the C locale).
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
