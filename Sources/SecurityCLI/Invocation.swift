/// What a command is given when it runs.
struct Invocation {
    /// The command being run.
    let command: any CommandDefinition
    /// The words after the command's name.
    let arguments: [Argument]
    /// The words scanned with the command's options.
    let scan: OptionParser.Result
    /// Where to read and write.
    let console: any Console
    /// Whether the command may ask for a keychain's password when a locked keychain stands in its
    /// way: not in `security -i` reading commands from a pipe, where the next command would be
    /// read as the password.
    var mayAskToUnlock = true

    init(command: any CommandDefinition, arguments: [Argument], console: any Console, mayAskToUnlock: Bool = true) {
        self.command = command
        self.arguments = arguments
        self.scan = command.options.parse(arguments)
        self.console = console
        self.mayAskToUnlock = mayAskToUnlock
    }

    /// The bad-usage failure for an error element of the scan.
    func usageError(for element: OptionParser.Element) -> ToolError {
        command.options.usageError(for: element)
    }
}
