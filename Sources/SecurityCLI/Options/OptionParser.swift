/// A command's option syntax and the scanner that reads it, with the semantics of BSD
/// `getopt(3)`, which macOS's `security` uses for every command: options may be clustered
/// (`-gw`), an option's value is the rest of its word or the next word (whatever it looks like),
/// scanning stops at the first operand or after `--`.
///
/// The specification is a getopt string (`"a:c:gw"`); a leading `:` asks for missing values to
/// be reported quietly (`add-generic-password` uses it to prompt for a trailing `-w`). Beyond
/// getopt, a specification names:
/// - its secret options (passwords and passphrases): their values are kept as the bytes given and
///   are masked wherever the command line is shown (`ArgumentRedaction`);
/// - options followed by a second value word (`import -a name value`);
/// - how many operands come before the options (`import inputfile [options]`).
///
/// Every value that is not a secret, and every operand, must be UTF-8: the scan reports one that
/// is not as an error (`Element.notText`), so a command never works on a repaired copy of what it
/// was given.
struct OptionParser: Sendable {
    /// One step of the scan, in command-line order.
    enum Element: Equatable, Sendable {
        /// An option, with its value when it takes one.
        case option(Character, String?)
        /// A secret option and its value's bytes.
        case secret(Character, [UInt8])
        /// An option that takes two values (`-a name value`).
        case pair(Character, String, String)
        /// An option that takes a value appeared last, with none.
        case missingValue(Character)
        /// A character the specification does not list.
        case unknown(Character)
        /// A value of this option (or, for nil, an operand) that is not UTF-8.
        case notText(Character?)
    }

    /// What a scan found: options in order (stopping after the first error), then operands.
    struct Result: Equatable, Sendable {
        /// Options and errors, in order; nothing follows an error.
        var elements: [Element]
        /// The operands: the words before the options (see `leadingOperands`), then those after.
        var operands: [String]
        /// Where each `.secret` element's value was read, in the same order.
        var secretLocations: [ValueLocation] = []
    }

    /// Where a value starts: a word of the command line, and a byte offset in it (0 when the value
    /// is the whole word; otherwise it follows its option letter in the same word).
    struct ValueLocation: Hashable, Sendable {
        let word: Int
        let offset: Int
    }

    /// The specification's option letters, in its order (ASCII, as getopt's are).
    private let letters: [UInt8]
    /// Whether the letter at the same index takes a value.
    private let lettersTakingValues: [Bool]
    /// Whether the specification began with `:` (getopt's "quiet" mode).
    let quiet: Bool
    /// The options whose values are secrets.
    let secrets: [Character]
    /// The options followed by a second value word.
    let pairs: [Character]
    /// How many words before the options are operands.
    let leadingOperands: Int
    /// Options without a value that take the next word as one when it is accepted by their
    /// test (so `-A` stays a flag before another option or a word it does not accept).
    let optionalValues: [Character: @Sendable (String) -> Bool]

    /// A parser for a getopt specification string such as `":a:c:C:w:U"`.
    ///
    /// - Parameters:
    ///   - secrets: the options whose values are secrets.
    ///   - pairs: the options whose value is followed by a second value word.
    ///   - leadingOperands: how many words come before the options.
    ///   - optionalValues: options without a value that take the next word as their value when
    ///     it passes their test (and they end their word).
    ///
    /// The command table makes every command's parser and a run uses one, so the specification
    /// is kept as two small arrays searched in place (at most some 20 letters) rather than
    /// hashed into a dictionary.
    init(
        _ specification: String, secrets: [Character] = [], pairs: [Character] = [], leadingOperands: Int = 0,
        optionalValues: [Character: @Sendable (String) -> Bool] = [:]
    ) {
        var characters = Array(specification.utf8)
        quiet = characters.first == UInt8(ascii: ":")
        if quiet { characters.removeFirst() }
        var letters: [UInt8] = []
        var lettersTakingValues: [Bool] = []
        var index = 0
        while index < characters.count {
            let hasValue = index + 1 < characters.count && characters[index + 1] == UInt8(ascii: ":")
            letters.append(characters[index])
            lettersTakingValues.append(hasValue)
            index += hasValue ? 2 : 1
        }
        self.letters = letters
        self.lettersTakingValues = lettersTakingValues
        self.secrets = secrets
        self.pairs = pairs
        self.leadingOperands = leadingOperands
        self.optionalValues = optionalValues
    }

    /// A command whose words are all operands (no option is scanned).
    static let operandsOnly = OptionParser("", leadingOperands: .max)

    /// Scans `arguments` given as text (tests and in-process callers).
    func parse(_ arguments: [String]) -> Result {
        parse(arguments.map { Argument($0) })
    }

    /// Scans `arguments` (the words after the command name).
    func parse(_ arguments: [Argument]) -> Result {
        var elements: [Element] = []
        var secretLocations: [ValueLocation] = []
        var index = min(leadingOperands, arguments.count)
        let leading = arguments[..<index]
        func result(operandsFrom start: Int?) -> Result {
            let rest = start.map { arguments[$0...] } ?? []
            let operands = Array(leading) + rest
            var elements = elements
            if elements.last.map(Self.isError) != true, operands.contains(where: { $0.text == nil }) {
                elements.append(.notText(nil))
            }
            return Result(elements: elements, operands: operands.map(\.displayText), secretLocations: secretLocations)
        }
        scanning: while index < arguments.count {
            let word = arguments[index].bytes
            if word == Self.doubleDash {
                index += 1
                break
            }
            guard word.count > 1, word[0] == Self.dash else { break }
            index += 1
            var position = 1
            while position < word.count {
                let letter = Self.letter(in: word, at: position)
                position += 1
                guard letter != ":", let hasValue = valueRule(for: letter) else {
                    elements.append(.unknown(letter))
                    return result(operandsFrom: index)
                }
                guard hasValue else {
                    if let accepts = optionalValues[letter], position == word.count, index < arguments.count,
                        let text = arguments[index].text, accepts(text)
                    {
                        elements.append(.option(letter, text))
                        index += 1
                        continue scanning
                    }
                    elements.append(.option(letter, nil))
                    continue
                }
                let location: ValueLocation
                if position < word.count {
                    location = ValueLocation(word: index - 1, offset: position)
                } else if index < arguments.count {
                    location = ValueLocation(word: index, offset: 0)
                    index += 1
                } else {
                    elements.append(.missingValue(letter))
                    return result(operandsFrom: nil)
                }
                let value = Array(arguments[location.word].bytes[location.offset...])
                if secrets.contains(letter) {
                    elements.append(.secret(letter, value))
                    secretLocations.append(location)
                    continue scanning
                }
                guard let text = String(validating: value, as: UTF8.self) else {
                    elements.append(.notText(letter))
                    return result(operandsFrom: nil)
                }
                guard pairs.contains(letter) else {
                    elements.append(.option(letter, text))
                    continue scanning
                }
                guard index < arguments.count else {
                    elements.append(.missingValue(letter))
                    return result(operandsFrom: nil)
                }
                guard let second = arguments[index].text else {
                    elements.append(.notText(letter))
                    return result(operandsFrom: nil)
                }
                index += 1
                elements.append(.pair(letter, text, second))
                continue scanning
            }
        }
        return result(operandsFrom: index)
    }

    /// Every place in `arguments` that may hold a secret option's value: those the scan reads,
    /// and those a scan that never stops would read (passing over unknown letters, operands and
    /// `--`), so a secret stays hidden on a command line that is bad usage, such as a password
    /// option after an operand (`unlock-keychain kc -p secret`) or after a mistyped option.
    func secretLocations(in arguments: [Argument]) -> Set<ValueLocation> {
        guard !secrets.isEmpty else { return [] }
        var locations = Set(parse(arguments).secretLocations)
        var index = 0
        words: while index < arguments.count {
            let word = arguments[index].bytes
            index += 1
            guard word.count > 1, word[0] == Self.dash else { continue }
            var position = 1
            while position < word.count {
                let letter = Self.letter(in: word, at: position)
                position += 1
                guard letter != ":", valueRule(for: letter) == true else { continue }
                let location: ValueLocation
                if position < word.count {
                    location = ValueLocation(word: index - 1, offset: position)
                } else if index < arguments.count {
                    location = ValueLocation(word: index, offset: 0)
                    index += 1
                } else {
                    break words
                }
                if secrets.contains(letter) { locations.insert(location) }
                if pairs.contains(letter) { index += 1 }
                continue words
            }
        }
        return locations
    }

    /// The bad-usage failure for an error element, carrying getopt's diagnostic (if any).
    func usageError(for element: Element) -> ToolError {
        switch element {
        case .notText(let letter?): return .usage(reason: "the value of -\(letter) is not valid UTF-8")
        case .notText(nil): return .usage(reason: "an argument is not valid UTF-8")
        default: break
        }
        guard !quiet else { return .usage(reason: nil) }
        switch element {
        case .unknown(let letter): return .usage(reason: "illegal option -- \(letter)")
        case .missingValue(let letter): return .usage(reason: "option requires an argument -- \(letter)")
        default: return .usage(reason: nil)
        }
    }

    /// A secret's value as text, for a secret that must be text (a PKCS#12 passphrase).
    ///
    /// - Throws: bad usage when `bytes` are not UTF-8.
    static func text(ofSecret bytes: [UInt8], option letter: Character) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ToolError.usage(reason: "the value of -\(letter) is not valid UTF-8")
        }
        return text
    }

    /// Whether `letter` is an option that takes a value.
    func takesValue(_ letter: Character) -> Bool { valueRule(for: letter) == true }

    /// Whether `letter` takes a value, or nil when the specification does not list it (a letter
    /// listed twice follows its last listing).
    private func valueRule(for letter: Character) -> Bool? {
        guard let ascii = letter.asciiValue, let index = letters.lastIndex(of: ascii) else { return nil }
        return lettersTakingValues[index]
    }

    /// Whether `element` ends a scan.
    static func isError(_ element: Element) -> Bool {
        switch element {
        case .option, .secret, .pair: return false
        case .missingValue, .unknown, .notText: return true
        }
    }

    private static let dash = UInt8(ascii: "-")
    private static let doubleDash: [UInt8] = [dash, dash]

    /// The option letter at `position` of `word`: an ASCII byte, or the character a longer UTF-8
    /// sequence spells (U+FFFD for bytes that are not UTF-8), which no specification lists.
    private static func letter(in word: [UInt8], at position: Int) -> Character {
        let byte = word[position]
        if byte < 0x80 { return Character(Unicode.Scalar(byte)) }
        let scalar = String(decoding: word[position...].prefix(4), as: UTF8.self).unicodeScalars.first
        return Character(scalar ?? "\u{FFFD}")
    }
}
