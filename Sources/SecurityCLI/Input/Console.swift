/// Where the `security` tool reads and writes: standard output, standard error, and the
/// terminal it prompts for passwords on.
///
/// The real tool uses `StandardConsole`; tests substitute a console that records output and
/// answers prompts from a script.
public protocol Console: AnyObject {
    /// Writes bytes to standard output.
    func writeOutput(_ bytes: [UInt8])

    /// Writes bytes to standard error.
    func writeError(_ bytes: [UInt8])

    /// Shows `prompt` and reads one line (without its newline), with echo turned off when the
    /// input is a terminal, as `getpass(3)` does.
    ///
    /// - Returns: the line's bytes, or nil at the end of input. The caller wipes the bytes.
    func readSecret(prompt: String) -> [UInt8]?

    /// Reads one command line for interactive mode (`security -i`), showing `prompt` first
    /// when the input is a terminal.
    ///
    /// - Returns: the line's bytes as read (they need not be UTF-8) without its newline, or nil
    ///   at the end of input.
    func readCommandLine(prompt: String) -> [UInt8]?

    /// Whether standard input is a terminal (so a password prompt cannot swallow a command line
    /// that `security -i` would read next).
    var inputIsTerminal: Bool { get }
}

extension Console {
    /// Consoles that are not the process's own are not terminals.
    public var inputIsTerminal: Bool { false }

    /// Writes text to standard output.
    func output(_ text: String) { writeOutput(Array(text.utf8)) }

    /// Writes text to standard error.
    func error(_ text: String) { writeError(Array(text.utf8)) }
}
