/// A scanner with the semantics of BSD `getopt(3)`, which macOS's `security` uses for every
/// command: options may be clustered (`-gw`), an option's value is the rest of its word or the
/// next word (whatever it looks like), scanning stops at the first operand or after `--`.
///
/// The specification is a getopt string (`"a:c:gw"`); a leading `:` asks for missing values to
/// be reported quietly (`add-generic-password` uses it to prompt for a trailing `-w`).
struct OptionParser: Sendable {
    /// One step of the scan, in command-line order.
    enum Element: Equatable, Sendable {
        /// An option, with its value when it takes one.
        case option(Character, String?)
        /// An option that takes a value appeared last, with none.
        case missingValue(Character)
        /// A character the specification does not list.
        case unknown(Character)
    }

    /// What a scan found: options in order (stopping after the first error), then operands.
    struct Result: Equatable, Sendable {
        /// Options and errors, in order; nothing follows an error.
        var elements: [Element]
        /// The words after the options.
        var operands: [String]
    }

    private let takesValue: [Character: Bool]
    /// Whether the specification began with `:` (getopt's "quiet" mode).
    let quiet: Bool

    /// A parser for a getopt specification string such as `":a:c:C:w:U"`.
    init(_ specification: String) {
        var characters = Array(specification)
        quiet = characters.first == ":"
        if quiet { characters.removeFirst() }
        var takesValue: [Character: Bool] = [:]
        var index = 0
        while index < characters.count {
            let name = characters[index]
            let hasValue = index + 1 < characters.count && characters[index + 1] == ":"
            takesValue[name] = hasValue
            index += hasValue ? 2 : 1
        }
        self.takesValue = takesValue
    }

    /// Scans `arguments` (the words after the command name).
    func parse(_ arguments: [String]) -> Result {
        var elements: [Element] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" {
                index += 1
                break
            }
            guard word.hasPrefix("-"), word.count > 1 else { break }
            index += 1
            var letters = Substring(word.dropFirst())
            while let letter = letters.first {
                letters = letters.dropFirst()
                guard letter != ":", let hasValue = takesValue[letter] else {
                    elements.append(.unknown(letter))
                    return Result(elements: elements, operands: Array(arguments[index...]))
                }
                guard hasValue else {
                    elements.append(.option(letter, nil))
                    continue
                }
                if !letters.isEmpty {
                    elements.append(.option(letter, String(letters)))
                } else if index < arguments.count {
                    elements.append(.option(letter, arguments[index]))
                    index += 1
                } else {
                    elements.append(.missingValue(letter))
                    return Result(elements: elements, operands: [])
                }
                break
            }
        }
        return Result(elements: elements, operands: Array(arguments[index...]))
    }

    /// The bad-usage failure for an error element, carrying getopt's diagnostic (if any).
    func usageError(for element: Element) -> ToolError {
        guard !quiet else { return .usage(reason: nil) }
        switch element {
        case .unknown(let letter): return .usage(reason: "illegal option -- \(letter)")
        case .missingValue(let letter): return .usage(reason: "option requires an argument -- \(letter)")
        case .option: return .usage(reason: nil)
        }
    }

    /// Whether `letter` is an option that takes a value.
    func takesValue(_ letter: Character) -> Bool { takesValue[letter] == true }
}
