/// `security -i`: reads command lines from standard input and runs them until the input ends.
///
/// A line splits into words at white space; single or double quotes group words and a backslash
/// takes the next character literally, as in macOS's tool. A command that fails prints
/// `<cmd>: returned <n>` on standard error unless `-q` was given. The result is the last
/// command's.
enum InteractiveMode {
    /// macOS reads at most this many words from a line.
    static let maximumWords = 32

    /// Runs the loop.
    static func run(console: any Console, prompt: String, quiet: Bool, execute: ([String]) -> Int32) -> Int32 {
        var result: Int32 = 0
        while let line = console.readCommandLine(prompt: prompt) {
            let words = split(line)
            result = execute(words)
            if result != 0 && !quiet, let word = words.first {
                console.error("\(word): returned \(result)\n")
            }
        }
        return result
    }

    /// Splits a command line into words.
    static func split(_ line: String) -> [String] {
        enum State { case between, word, wordEscape, quoted, quotedEscape }
        var words: [String] = []
        var current = ""
        var state = State.between
        var quote: Character = "\""
        for character in line {
            switch state {
            case .between:
                if character.isWhitespace { continue }
                if character == "\"" || character == "'" {
                    quote = character
                    state = .quoted
                } else if character == "\\" {
                    state = .wordEscape
                } else {
                    current.append(character)
                    state = .word
                }
            case .word:
                if character == "\\" {
                    state = .wordEscape
                } else if character.isWhitespace {
                    words.append(current)
                    current = ""
                    state = .between
                } else {
                    current.append(character)
                }
            case .wordEscape:
                current.append(character)
                state = .word
            case .quoted:
                if character == "\\" {
                    state = .quotedEscape
                } else if character == quote {
                    words.append(current)
                    current = ""
                    state = .between
                } else {
                    current.append(character)
                }
            case .quotedEscape:
                current.append(character)
                state = .quoted
            }
            if words.count >= maximumWords { return words }
        }
        if state != .between { words.append(current) }
        return words
    }
}
