#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a password the way `getpass(3)` does for macOS's tool: on a terminal the prompt goes to
/// the terminal, echo is off while the user types, and a newline is written afterwards; without
/// a terminal the prompt goes to standard error and one line is read from standard input.
///
/// Passwords are never taken from the environment.
enum PasswordPrompt {
    /// Shows `prompt` and reads one line.
    ///
    /// - Returns: the bytes typed, or nil at the end of input.
    static func read(prompt: String) -> [UInt8]? {
        guard FileDescriptor.isTerminal(FileDescriptor.input) else {
            FileDescriptor.writeAll(Array(prompt.utf8), to: FileDescriptor.error)
            return FileDescriptor.readLine(from: FileDescriptor.input)
        }
        return readFromTerminal(prompt: prompt)
    }

    /// The terminal path: the terminal standard input names, read and written directly.
    private static func readFromTerminal(prompt: String) -> [UInt8]? {
        var descriptor = FileDescriptor.input
        var outputDescriptor = FileDescriptor.error
        var opened: Int32 = -1
        if let name = ttyname(FileDescriptor.input) {
            opened = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
            if opened >= 0 {
                descriptor = opened
                outputDescriptor = opened
            }
        }
        defer { if opened >= 0 { close(opened) } }

        var original = termios()
        let canSilence = tcgetattr(descriptor, &original) == 0
        if canSilence {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO | ECHONL)
            EchoGuard.install(descriptor: descriptor, original: original)
            _ = tcsetattr(descriptor, TCSAFLUSH, &silent)
        }
        FileDescriptor.writeAll(Array(prompt.utf8), to: outputDescriptor)
        let line = FileDescriptor.readLine(from: descriptor)
        if canSilence {
            _ = tcsetattr(descriptor, TCSAFLUSH, &original)
            EchoGuard.remove()
            FileDescriptor.writeAll([UInt8(ascii: "\n")], to: outputDescriptor)
        }
        return line
    }
}

/// Restores the terminal's echo if the tool is interrupted while a password is being typed.
///
/// Signal handlers cannot capture context, so the saved terminal state is process-global; it is
/// only set while one prompt is active (the tool prompts from one thread).
private enum EchoGuard {
    nonisolated(unsafe) static var saved: (descriptor: Int32, attributes: termios)?
    nonisolated(unsafe) static var previousHandlers: [(Int32, sighandler_t?)] = []
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func install(descriptor: Int32, original: termios) {
        saved = (descriptor, original)
        previousHandlers = signals.map { signalNumber in
            (signalNumber, signal(signalNumber) { received in
                if var state = EchoGuard.saved {
                    _ = tcsetattr(state.descriptor, TCSAFLUSH, &state.attributes)
                }
                signal(received, SIG_DFL)
                raise(received)
            })
        }
    }

    static func remove() {
        for (signalNumber, handler) in previousHandlers {
            signal(signalNumber, handler)
        }
        previousHandlers = []
        saved = nil
    }
}
