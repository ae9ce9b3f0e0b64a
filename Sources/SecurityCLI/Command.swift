/// One command of the tool, as listed by `security help`.
struct Command: Sendable {
    /// What runs the command: its implementation, or nothing for commands macOS has and this
    /// tool does not (they fail with errSecUnimplemented).
    typealias Action = @Sendable (Invocation) throws -> Int32

    /// The command's name (`find-generic-password`).
    let name: String
    /// The synopsis and option list printed after `Usage: <name> `.
    let usage: String
    /// The one-line description printed by `security help`.
    let summary: String
    /// The implementation; nil when the command is not implemented.
    let action: Action?
    /// The command's getopt string and the options whose values are secrets, so `-v` can echo
    /// the command line without them.
    let secretOptions: (specification: String, letters: Set<Character>)?

    init(
        _ name: String, usage: String, summary: String,
        secretOptions: (specification: String, letters: Set<Character>)? = nil, action: Action? = nil
    ) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.action = action
        self.secretOptions = secretOptions
    }

    /// The block printed to standard error when the command reports bad usage (exit status 2).
    var usageBlock: String { "Usage: \(name) \(usage)\n        \(summary)\n" }
}

/// What a command is given when it runs.
struct Invocation {
    /// The command being run.
    let command: Command
    /// The words after the command's name.
    let arguments: [String]
    /// Where to read and write.
    let console: any Console
    /// Whether the command may ask for a keychain's password when a locked keychain stands in its
    /// way: not in `security -i` reading commands from a pipe, where the next command would be
    /// read as the password.
    var mayAskToUnlock = true
}
