/// `help [command...]`: without arguments, every command with its summary; with arguments,
/// `Usage: <command> <usage>` for each (on standard output, exit status 0). A word that names no
/// command fails with `security: help: no such command: <word>` (exit status 1).
enum HelpCommand {
    /// Runs the command.
    static func run(_ invocation: Invocation) throws -> Int32 {
        try show(invocation.arguments, on: invocation.console)
        return 0
    }

    /// Prints the help for `words` (command names or prefixes), stopping at the first word that
    /// names no command, as macOS does.
    static func show(_ words: [String], on console: any Console) throws {
        guard !words.isEmpty else {
            console.output(commandList)
            return
        }
        for word in words {
            guard let command = CommandTable.command(named: word) else {
                throw ToolError.failed(result: 1, message: "security: help: no such command: \(word)\n")
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
