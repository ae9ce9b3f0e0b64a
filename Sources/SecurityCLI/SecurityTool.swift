import KeychainAuthentication

/// The `security` command-line tool: macOS's `security(1)` syntax, output and exit statuses
/// over this project's keychain.
///
/// `security [-hilqv] [-p prompt] [command] [command_options] [command_args]`
///
/// - `-h` lists the commands (or, followed by command names, their usage) and exits 0;
/// - `-i` reads commands from standard input (the prompt `security> ` shows when it is a
///   terminal); `-p prompt` sets the prompt and implies `-i`;
/// - `-q` silences interactive mode's `<cmd>: returned <n>` lines;
/// - `-v` echoes each command and its quoted arguments to standard error (password values
///   replaced by `********`);
/// - `-l` (run leaks at exit on macOS) is accepted and ignored.
///
/// The exit status is the last command's result truncated to 8 bits: 0 success, 1 generic
/// failure (unknown command: `security: unknown command "x"`), 2 bad usage (with the command's
/// usage on standard error), otherwise the `OSStatus` (44 not found, 45 duplicate, 50 no such
/// keychain, 252 not implemented).
public enum SecurityTool {
    /// Runs the tool on the process's own console.
    ///
    /// - Parameter arguments: the full command line, program name first, as the bytes the
    ///   process was given (`CommandLine.unsafeArgv`): arguments need not be UTF-8.
    /// - Returns: the exit status.
    public static func main(rawArguments arguments: [[UInt8]]) -> Int32 {
        let console = StandardConsole()
        defer { console.flush() }
        // Keychains opened in-process check biometric constraints with the machine's reader.
        FingerprintBiometrics.useMachineReaderForKeychains()
        return ToolError.exitStatus(for: result(arguments.dropFirst().map { Argument($0) }, console: console))
    }

    /// Runs the tool.
    ///
    /// - Parameters:
    ///   - arguments: the words after the program name.
    ///   - console: where to read and write.
    /// - Returns: the exit status (0–255).
    public static func run(_ arguments: [String], console: any Console) -> Int32 {
        ToolError.exitStatus(for: result(arguments.map { Argument($0) }, console: console))
    }

    /// Whether the command line (without the program name) may need OpenSSL's table of legacy
    /// algorithm names: unless it is a single command (no global options, no interactive mode)
    /// whose definition says it does not.
    public static func needsLegacyAlgorithmNames(_ arguments: [[UInt8]]) -> Bool {
        guard let word = arguments.first.flatMap({ Argument($0).text }), let command = CommandTable.command(named: word)
        else { return true }
        return command.needsLegacyAlgorithmNames
    }

    /// Runs the tool and returns the untruncated result.
    static func result(_ arguments: [Argument], console: any Console) -> Int32 {
        let parser = OptionParser("hilp:qv")
        let scan = parser.parse(arguments)
        var settings = Settings()
        for element in scan.elements {
            switch element {
            case .option("h", _): settings.help = true
            case .option("i", _): settings.interactive = true
            case .option("l", _): break
            case .option("p", let prompt):
                settings.interactive = true
                settings.prompt = prompt ?? settings.prompt
            case .option("q", _): settings.quiet = true
            case .option("v", _): settings.verbose = true
            case .notText(nil): break  // The command's words: the command checks its own.
            default:
                if case .usage(let reason?) = parser.usageError(for: element) {
                    console.error("security: \(reason)\n")
                }
                return usage(console)
            }
        }
        let words = Array(arguments.suffix(scan.operands.count))
        if settings.help {
            do {
                try HelpCommand.show(words, on: console)
                return 0
            } catch {
                return report(error as? ToolError ?? .failed(result: 1, message: nil), command: nil, console: console)
            }
        }
        if !words.isEmpty {
            return execute(words, console: console, settings: settings)
        }
        if settings.interactive {
            return InteractiveMode.run(console: console, prompt: settings.prompt, quiet: settings.quiet) { words in
                execute(words, console: console, settings: settings)
            }
        }
        return usage(console)
    }

    /// The global options.
    struct Settings {
        var help = false
        var interactive = false
        var prompt = "security> "
        var quiet = false
        var verbose = false
    }

    /// Runs one command line (`words[0]` names the command, by prefix).
    static func execute(_ words: [Argument], console: any Console, settings: Settings) -> Int32 {
        guard let word = words.first else { return 0 }
        guard let name = word.text, let command = CommandTable.command(named: name) else {
            console.writeError(Array("security: unknown command \"".utf8) + word.bytes + Array("\"\n".utf8))
            return 1
        }
        let arguments = Array(words.dropFirst())
        if settings.verbose {
            console.error(ArgumentRedaction.echo(command: command, arguments: arguments))
        }
        let invocation = Invocation(
            command: command, arguments: arguments, console: console,
            mayAskToUnlock: !settings.interactive || console.inputIsTerminal)
        do {
            return try command.run(invocation)
        } catch {
            return report(error as? ToolError ?? .api(command.name, error), command: command, console: console)
        }
    }

    /// Prints a failure and returns its result; bad usage adds the command's usage block.
    static func report(_ failure: ToolError, command: (any CommandDefinition)?, console: any Console) -> Int32 {
        if let message = failure.message { console.error(message) }
        if case .usage = failure, let command { console.error(command.usageBlock) }
        return failure.result
    }

    /// The global usage (standard output) followed by the command list; the result is 2.
    static func usage(_ console: any Console) -> Int32 {
        console.output(
            """
            Usage: security [-h] [-i] [-l] [-p prompt] [-q] [-v] [command] [opt ...]
                -i    Run in interactive mode.
                -l    Accepted for compatibility (macOS runs leaks before exiting).
                -p    Set the prompt to "prompt" (implies -i).
                -q    Be less verbose.
                -v    Be more verbose about what's going on.
            security commands are:

            """ + HelpCommand.commandList)
        return 2
    }
}
