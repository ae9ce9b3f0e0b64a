/// The process's own standard streams and terminal.
///
/// Standard output is buffered and flushed before anything goes to standard error or a prompt
/// appears, so the two streams interleave on a terminal as the tool wrote them.
public final class StandardConsole: Console {
    private var pending: [UInt8] = []
    private static let flushThreshold = 64 * 1024

    /// A console over file descriptors 0, 1 and 2.
    public init() {}

    deinit { flush() }

    /// Buffers bytes for standard output.
    public func writeOutput(_ bytes: [UInt8]) {
        pending += bytes
        if pending.count >= Self.flushThreshold { flush() }
    }

    /// Writes bytes to standard error (after any buffered output).
    public func writeError(_ bytes: [UInt8]) {
        flush()
        FileDescriptor.writeAll(bytes, to: FileDescriptor.error)
    }

    /// Prompts on the terminal with echo off, or on standard error when input is not a terminal.
    public func readSecret(prompt: String) -> [UInt8]? {
        flush()
        return PasswordPrompt.read(prompt: prompt)
    }

    /// Reads a line of standard input, prompting on standard error when it is a terminal.
    public func readCommandLine(prompt: String) -> [UInt8]? {
        flush()
        if FileDescriptor.isTerminal(FileDescriptor.input) {
            FileDescriptor.writeAll(Array(prompt.utf8), to: FileDescriptor.error)
        }
        return FileDescriptor.readLine(from: FileDescriptor.input)
    }

    /// Whether standard input is a terminal.
    public var inputIsTerminal: Bool { FileDescriptor.isTerminal(FileDescriptor.input) }

    /// Writes buffered standard output.
    public func flush() {
        guard !pending.isEmpty else { return }
        FileDescriptor.writeAll(pending, to: FileDescriptor.output)
        pending.removeAll(keepingCapacity: true)
    }
}
