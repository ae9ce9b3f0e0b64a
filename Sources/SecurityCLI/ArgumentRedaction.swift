/// The `-v` echo of a command line (`<command> "<arg>" "<arg>" ...` on standard error, as macOS
/// prints it), with the values of password options replaced by `********`.
enum ArgumentRedaction {
    /// What replaces a secret.
    static let mask = "********"

    /// The echo line for `command` run with `arguments`.
    static func echo(command: Command, arguments: [String]) -> String {
        let shown = command.secretOptions.map { redacted(arguments, specification: $0.specification, secrets: $0.letters) }
            ?? arguments
        return command.name + shown.map { " \"\($0)\"" }.joined() + "\n"
    }

    /// `arguments` with the value of every option in `secrets` masked, walking the words the way
    /// `OptionParser` does (clusters, attached and detached values, `--`).
    static func redacted(_ arguments: [String], specification: String, secrets: Set<Character>) -> [String] {
        let parser = OptionParser(specification)
        var words = arguments
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "--" || !word.hasPrefix("-") || word.count == 1 { break }
            index += 1
            var position = word.index(after: word.startIndex)
            while position < word.endIndex {
                let letter = word[position]
                position = word.index(after: position)
                guard parser.takesValue(letter) else { continue }
                if position < word.endIndex {
                    if secrets.contains(letter) { words[index - 1] = String(word[..<position]) + mask }
                } else if index < words.count {
                    if secrets.contains(letter) { words[index] = mask }
                    index += 1
                }
                break
            }
        }
        return words
    }
}
