/// The `-v` echo of a command line (`<command> "<arg>" "<arg>" ...` on standard error, as macOS
/// prints it), with the values of the command's secret options replaced by `********`: the
/// options its own definition declares secret, wherever a scan could read one, so a password
/// stays hidden on a command line that is bad usage too.
enum ArgumentRedaction {
    /// What replaces a secret.
    static let mask = "********"

    /// The echo line for `command` run with `arguments`.
    static func echo(command: any CommandDefinition, arguments: [Argument]) -> String {
        command.name + redacted(arguments, options: command.options).map { " \"\($0.displayText)\"" }.joined() + "\n"
    }

    /// The echo line for `command` run with `arguments` given as text.
    static func echo(command: any CommandDefinition, arguments: [String]) -> String {
        echo(command: command, arguments: arguments.map { Argument($0) })
    }

    /// `arguments` with every secret value `options.secretLocations` finds replaced by the mask
    /// (an attached value keeps its option letters: `-w********`). Where two scans start a value
    /// at different places in one word, the earlier place wins, so the mask covers both.
    static func redacted(_ arguments: [Argument], options: OptionParser) -> [Argument] {
        var words = arguments
        for location in options.secretLocations(in: arguments).sorted(by: { $0.offset > $1.offset }) {
            words[location.word] = Argument(Array(arguments[location.word].bytes.prefix(location.offset)) + Array(mask.utf8))
        }
        return words
    }
}
