/// `help [command...]`: without arguments, every command with its summary; with arguments,
/// `Usage: <command> <usage>` for each (on standard output, exit status 0). A word that names no
/// command fails with `security: help: no such command: <word>` (exit status 1).
struct HelpCommand: CommandDefinition {
    let name = "help"
    let usage = "[command ...]"
    let summary = "Show all commands, or show usage for a command."
    let options = OptionParser.operandsOnly

    func run(_ invocation: Invocation) throws -> Int32 {
        try Self.show(invocation.arguments, on: invocation.console)
        return 0
    }

    /// Prints the help for `words` (command names or prefixes), stopping at the first word that
    /// names no command, as macOS does.
    static func show(_ words: [Argument], on console: any Console) throws {
        guard !words.isEmpty else {
            console.output(commandList)
            return
        }
        for word in words {
            guard let command = word.text.flatMap(CommandTable.command(named:)) else {
                throw ToolError.failed(result: 1, message: "security: help: no such command: \(word.displayText)\n")
            }
            console.output("Usage: \(command.name) \(command.usage)\n")
        }
    }

    /// Every command and its summary, one per line.
    static var commandList: String {
        CommandTable.commands.map { command in
            let padding = String(repeating: " ", count: max(0, 17 - command.name.count))
            return "    \(command.name)\(padding) \(command.summary)\n"
        }.joined()
    }
}
