/// One command of the tool, everything about it in one place: its name, its help, its option
/// syntax (which also says which options are secrets), what it needs from the crypto library,
/// and what it does. The command table, `help`, the `-v` echo and the executable's start-up all
/// read these definitions, and the command parses its own words with the same `options`, so
/// the options the echo masks are exactly the ones the command reads as secrets.
protocol CommandDefinition: Sendable {
    /// The command's name (`find-generic-password`).
    var name: String { get }
    /// The synopsis and option list printed after `Usage: <name> `.
    var usage: String { get }
    /// The one-line description printed by `security help`.
    var summary: String { get }
    /// The command's option syntax and its secret options.
    var options: OptionParser { get }
    /// Whether the command may need OpenSSL's table of legacy algorithm names (PKCS#12, PEM and
    /// by-name digest look-ups); without it the executable starts faster.
    var needsLegacyAlgorithmNames: Bool { get }
    /// Whether this tool implements the command (macOS has some it does not).
    var isImplemented: Bool { get }

    /// Runs the command.
    ///
    /// - Returns: the command's result (0 for success, an `OSStatus`, 1 or 2).
    /// - Throws: `ToolError` (or an engine error, reported under the command's name).
    func run(_ invocation: Invocation) throws -> Int32
}

extension CommandDefinition {
    var needsLegacyAlgorithmNames: Bool { true }
    var isImplemented: Bool { true }

    /// The block printed to standard error when the command reports bad usage (exit status 2).
    var usageBlock: String { "Usage: \(name) \(usage)\n        \(summary)\n" }
}
