import Foundation

@testable import KeychainCore
@testable import SecurityCLI

/// (c) `security` command lines.
///
/// Each input builds a list of words (options, clusters, command-name prefixes, values, `--`,
/// arbitrary text) and a line for interactive mode. Properties:
/// - the option scanner's operands are a suffix of the words, and it stops at the first error;
/// - `-v` redaction keeps the words' count and option structure and replaces the value of every
///   password option (`-w`, `-p`, `-X`) by the mask, and only those;
/// - the password options parse or fail with a `ToolError`, never crash;
/// - commands that touch no file (help, `error`, the unimplemented ones, unknown words, global
///   option errors) run to an exit status in 0…255;
/// - interactive-mode splitting gives at most 32 words.
enum CommandLineFuzzer {
    static let words: [String] = [
        "-a", "-s", "-w", "-p", "-X", "-g", "-U", "-gw", "-wg", "-aX", "-Ua", "-c", "-C", "-D", "-G", "-j", "-l", "-P",
        "-r", "-t", "-d", "-A", "-T", "-h", "-i", "-q", "-v", "-", "--", "-:", "secret", "me", "svc", "0x1f", "-25300",
        "4142", "abc", "abcd", "ftp", "http", "65536", "443", "", " ", "\"", "'", "\\", "help", "error", "list-keychains",
        "create-keychain", "add-certificates", "show-keychain-info", "unknown", "find-identity", "smartcards",
    ] + CommandTable.commands.map(\.name)

    /// The implemented commands that touch no file and so may run with any arguments. Every other
    /// implemented command reads or writes keychains, preferences or files named by its operands
    /// (which would land in the user's keychain directory or the working directory): only their
    /// option parsing is exercised.
    static let filelessCommands: Set<String> = ["help", "error"]

    static func run(_ input: inout FuzzInput) throws {
        let arguments = (0..<input.below(10)).map { _ in input.text(words) }
        try checkScanner(arguments)
        try checkRedaction(arguments)
        for kind in [PasswordKind.generic, .internet] {
            for operation in [PasswordOperation.add, .find, .delete] {
                do {
                    let options = try PasswordItemOptions.parse(arguments, kind: kind, operation: operation)
                    _ = options.searchRequest(kind)
                    _ = options.addRequest(kind)
                    _ = options.changes(kind)
                    _ = options.addedItemKey(kind, accessGroup: "group")
                } catch is ToolError {
                    continue
                }
            }
        }
        try runTool(arguments)
        let line = String(decoding: input.remainder(), as: UTF8.self)
        if InteractiveMode.split(line).count > InteractiveMode.maximumWords {
            throw FuzzFailure("interactive mode split a line into more than \(InteractiveMode.maximumWords) words")
        }
    }

    private static func checkScanner(_ arguments: [String]) throws {
        for command in CommandTable.commands where command.options.leadingOperands == 0 {
            let scan = command.options.parse(arguments)
            guard scan.operands.count <= arguments.count, Array(arguments.suffix(scan.operands.count)) == scan.operands else {
                throw FuzzFailure("operands \(scan.operands) are not a suffix of \(arguments)")
            }
            for element in scan.elements.dropLast() where OptionParser.isError(element) {
                throw FuzzFailure("the scan went on after \(element)")
            }
        }
    }

    private static func checkRedaction(_ arguments: [String]) throws {
        let words = arguments.map { Argument($0) }
        for command in CommandTable.commands where !command.options.secrets.isEmpty && command.options.leadingOperands == 0 {
            let parser = command.options
            let secrets = parser.secrets
            let redacted = ArgumentRedaction.redacted(words, options: parser)
            guard redacted.count == arguments.count else { throw FuzzFailure("redaction changed the word count") }
            let before = parser.parse(words)
            let after = parser.parse(redacted)
            // Only a line the scan reads to its end keeps its structure: elsewhere a secret a
            // later scan could read is masked too.
            guard before.operands.isEmpty, before.elements.last.map(OptionParser.isError) != true else { continue }
            let (beforeElements, afterElements) = (before.elements, after.elements)
            guard beforeElements.count == afterElements.count else {
                throw FuzzFailure("redaction changed the options of \(arguments): \(redacted)")
            }
            for (original, masked) in zip(beforeElements, afterElements) {
                switch (original, masked) {
                case (.secret(let letter, _), .secret(let maskedLetter, let maskedValue)):
                    guard letter == maskedLetter, secrets.contains(letter) else { throw FuzzFailure("redaction changed -\(letter)") }
                    guard maskedValue == Array(ArgumentRedaction.mask.utf8) else {
                        throw FuzzFailure("-\(letter) was echoed as \(String(decoding: maskedValue, as: UTF8.self))")
                    }
                default:
                    guard original == masked else { throw FuzzFailure("redaction changed \(original) into \(masked)") }
                }
            }
        }
    }

    private static func runTool(_ arguments: [String]) throws {
        let scan = OptionParser("hilp:qv").parse(arguments)
        if let word = scan.operands.first, let command = CommandTable.command(named: word),
            command.isImplemented, !filelessCommands.contains(command.name)
        {
            return
        }
        // Interactive mode reads commands from the console, which has none here.
        let console = SilentConsole()
        let status = SecurityTool.run(arguments, console: console)
        guard (0...255).contains(status) else { throw FuzzFailure("exit status \(status)") }
    }
}

/// A console that keeps nothing and has no input.
final class SilentConsole: Console {
    func writeOutput(_ bytes: [UInt8]) {}
    func writeError(_ bytes: [UInt8]) {}
    func readSecret(prompt: String) -> [UInt8]? { nil }
    func readCommandLine(prompt: String) -> [UInt8]? { nil }
}
