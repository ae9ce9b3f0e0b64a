/// The `security` command-line tool: macOS's `security(1)` syntax, output and exit statuses
/// over this project's keychain (spec E).
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
    /// - Parameter arguments: the full command line, program name first (`CommandLine.arguments`).
    /// - Returns: the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        let console = StandardConsole()
        defer { console.flush() }
        return run(Array(arguments.dropFirst()), console: console)
    }

    /// Runs the tool.
    ///
    /// - Parameters:
    ///   - arguments: the words after the program name.
    ///   - console: where to read and write.
    /// - Returns: the exit status (0–255).
    public static func run(_ arguments: [String], console: any Console) -> Int32 {
        ToolError.exitStatus(for: result(arguments, console: console))
    }

    /// Runs the tool and returns the untruncated result.
    static func result(_ arguments: [String], console: any Console) -> Int32 {
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
            default:
                if case .usage(let reason?) = parser.usageError(for: element) {
                    console.error("security: \(reason)\n")
                }
                return usage(console)
            }
        }
        if settings.help {
            do {
                try HelpCommand.show(scan.operands, on: console)
                return 0
            } catch {
                return report(error as? ToolError ?? .failed(result: 1, message: nil), command: nil, console: console)
            }
        }
        if !scan.operands.isEmpty {
            return execute(scan.operands, console: console, settings: settings)
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
    static func execute(_ words: [String], console: any Console, settings: Settings) -> Int32 {
        guard let word = words.first else { return 0 }
        guard let command = CommandTable.command(named: word) else {
            console.error("security: unknown command \"\(word)\"\n")
            return 1
        }
        let arguments = Array(words.dropFirst())
        if settings.verbose {
            console.error(ArgumentRedaction.echo(command: command, arguments: arguments))
        }
        guard let action = command.action else {
            if arguments.first == "-h" {
                console.error(command.usageBlock)
                return 2
            }
            return report(ToolError.unimplemented(command: command.name), command: command, console: console)
        }
        let invocation = Invocation(
            command: command, arguments: arguments, console: console,
            mayAskToUnlock: !settings.interactive || console.inputIsTerminal)
        do {
            return try action(invocation)
        } catch {
            return report(error as? ToolError ?? .api(command.name, error), command: command, console: console)
        }
    }

    /// Prints a failure and returns its result; bad usage adds the command's usage block.
    static func report(_ failure: ToolError, command: Command?, console: any Console) -> Int32 {
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
