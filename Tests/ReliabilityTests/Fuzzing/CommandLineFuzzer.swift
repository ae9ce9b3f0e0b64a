import Foundation
import Synchronization

@_spi(Testing) @testable import KeychainCore
@testable import Security
@testable import SecurityCLI

/// (c) `security` command lines.
///
/// Each input builds a list of words (options, clusters, command-name prefixes, values, `--`,
/// arbitrary bytes that need not be UTF-8, and a password canary) and, from the rest of the
/// input, lines for interactive mode. Properties:
/// - every command's option scanner stops at its first error and its operands are the words it
///   did not read as options;
/// - `-v` redaction keeps the words' count, masks every value the command's scan reads as a
///   secret, changes no other word (except to mask a secret a scan that never stops would find
///   later in the line), and, on a command line the scan reads to the end, masks exactly the
///   secret values;
/// - the password options parse or fail with a `ToolError`, never crash;
/// - the tool runs the command line (and, with `-i`, the lines) to a result it documents: 0, 1,
///   2 or an `OSStatus` of Apple's table, never a crash; and when the canary appears only as
///   the value of secret options, nothing the tool prints contains it.
///
/// Which commands run depends on where: in a sandbox (`CommandLineFuzzSandbox`: `scripts/fuzz`,
/// and the sandboxed replay in `swift test`) every command runs, on a keychain directory and a
/// working directory emptied before each input, as long as no word can name a file outside
/// (a `/`, `~`, `.` or `..`); anywhere else only the commands that touch no file (help, error,
/// unimplemented and unknown commands) run.
enum CommandLineFuzzer {
    /// A password the inputs may give; printed, it is a leak.
    static let canary = "Zq7fuzzSECRET"

    static let words: [String] = [
        "-a", "-s", "-w", "-p", "-X", "-g", "-U", "-gw", "-wg", "-aX", "-Ua", "-c", "-C", "-D", "-G", "-j", "-l", "-P",
        "-r", "-t", "-d", "-A", "-T", "-h", "-i", "-q", "-v", "-", "--", "-:", "-k", "-o", "-f", "-e", "-x", "-u", "-Z",
        "secret", "me", "svc", "0x1f", "-25300", "-99999999999", "4142", "abc", "abcd", "ftp", "http", "65536", "443",
        "", " ", "\"", "'", "\\", "help", "error", "unknown", "kc", "login", "out", "pkcs12", "certs", "ak", "dku",
        canary, "-w" + canary, "-P" + canary, "-p" + canary,
    ] + CommandTable.commands.map(\.name)

    /// How many command lines that touch files ran (in a sandbox) in this process.
    static let fileCommandsRun = Atomic<Int>(0)

    /// The commands that touch no file, whatever their arguments.
    static func touchesNoFile(_ command: any CommandDefinition) -> Bool {
        !command.isImplemented || command is HelpCommand || command is ErrorCommand
    }

    static func run(_ input: inout FuzzInput) throws {
        let arguments = (0..<input.below(10)).map { _ in word(&input) }
        let lines = Array(input.remainder().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(6))
            .map { Array($0) }
        for line in lines where InteractiveMode.split(line).count > InteractiveMode.maximumWords {
            throw FuzzFailure("interactive mode split a line into more than \(InteractiveMode.maximumWords) words")
        }
        for command in CommandTable.commands {
            try checkScanner(arguments, command.options)
            try checkRedaction(arguments, command.options)
        }
        try checkPasswordOptions(arguments)
        try runTool(arguments, lines: lines)
    }

    /// One word: usually from `words`, sometimes arbitrary bytes.
    private static func word(_ input: inout FuzzInput) -> Argument {
        input.below(4) == 0 ? Argument(input.blob(maximum: 24)) : Argument(input.pick(words))
    }

    private static func checkScanner(_ arguments: [Argument], _ options: OptionParser) throws {
        let scan = options.parse(arguments)
        for element in scan.elements.dropLast() where OptionParser.isError(element) {
            throw FuzzFailure("the scan went on after \(element)")
        }
        let leading = arguments.prefix(options.leadingOperands)
        let expectedLeading = leading.map(\.displayText)
        guard Array(scan.operands.prefix(leading.count)) == expectedLeading else {
            throw FuzzFailure("operands \(scan.operands) do not start with the leading words \(expectedLeading)")
        }
        let trailing = scan.operands.dropFirst(leading.count)
        guard Array(arguments.suffix(trailing.count).map(\.displayText)) == Array(trailing) else {
            throw FuzzFailure("operands \(scan.operands) are not a suffix of \(arguments)")
        }
        // Operands reach a command only as text: one that is not UTF-8 ends the scan with an error.
        let operandWords = Array(leading) + arguments.suffix(trailing.count)
        if operandWords.contains(where: { $0.text == nil }), scan.elements.last.map(OptionParser.isError) != true {
            throw FuzzFailure("an operand that is not UTF-8 was accepted: \(scan.elements)")
        }
    }

    private static func checkRedaction(_ arguments: [Argument], _ options: OptionParser) throws {
        let redacted = ArgumentRedaction.redacted(arguments, options: options)
        guard redacted.count == arguments.count else { throw FuzzFailure("redaction changed the word count") }
        let mask = Array(ArgumentRedaction.mask.utf8)
        var masked = Set<Int>()
        for (index, (original, shown)) in zip(arguments, redacted).enumerated() where original != shown {
            guard shown.bytes.count >= mask.count, Array(shown.bytes.suffix(mask.count)) == mask,
                original.bytes.starts(with: shown.bytes.dropLast(mask.count))
            else {
                throw FuzzFailure("redaction turned \(original.displayText) into \(shown.displayText)")
            }
            masked.insert(index)
        }
        // The scan says where it read each secret; the bytes there are the secret's value, and
        // the echo masks them.
        let scan = options.parse(arguments)
        let secrets = scan.elements.compactMap { element -> [UInt8]? in
            if case .secret(_, let value) = element { return value }
            return nil
        }
        guard secrets.count == scan.secretLocations.count else {
            throw FuzzFailure("\(secrets.count) secrets read at \(scan.secretLocations.count) places")
        }
        for (value, location) in zip(secrets, scan.secretLocations) {
            guard location.word < arguments.count, Array(arguments[location.word].bytes.dropFirst(location.offset)) == value else {
                throw FuzzFailure("a secret was not read where the scan says")
            }
            let shown = redacted[location.word].bytes
            guard shown.count <= location.offset + mask.count, Array(shown.suffix(mask.count)) == mask else {
                throw FuzzFailure("a secret value was echoed: \(redacted.map(\.displayText))")
            }
        }
        // A line the scan reads to its end: exactly the secrets are masked.
        if options.leadingOperands == 0, scan.operands.isEmpty, scan.elements.last.map(OptionParser.isError) != true {
            guard masked == Set(scan.secretLocations.map(\.word)) else {
                throw FuzzFailure("redaction masked \(masked.sorted()) of \(arguments.map(\.displayText)), not the secrets")
            }
        }
    }

    private static func checkPasswordOptions(_ arguments: [Argument]) throws {
        for kind in [PasswordKind.generic, .internet] {
            for operation in [PasswordOperation.add, .find, .delete] {
                do {
                    let scan = PasswordItemOptions.specification(kind, operation).parse(arguments)
                    let options = try PasswordItemOptions.parse(scan, kind: kind, operation: operation)
                    _ = options.searchRequest(kind)
                    _ = options.addRequest(kind)
                    _ = options.changes(kind)
                    _ = options.addedItemKey(kind, accessGroup: "group")
                } catch is ToolError {
                    continue
                }
            }
        }
    }

    private static func runTool(_ arguments: [Argument], lines: [[UInt8]]) throws {
        let sandbox = CommandLineFuzzSandbox.current()
        func touchesFiles(_ words: [Argument]) -> Bool {
            let scan = OptionParser("hilp:qv").parse(words)
            guard let name = words.suffix(scan.operands.count).first?.text, let command = CommandTable.command(named: name)
            else { return false }
            return !touchesNoFile(command)
        }
        func mayRun(_ words: [Argument]) -> Bool {
            !touchesFiles(words) || (sandbox != nil && words.allSatisfy(CommandLineFuzzSandbox.staysInside))
        }
        guard mayRun(arguments) else { return }
        if touchesFiles(arguments) { fileCommandsRun.add(1, ordering: .relaxed) }
        let safeLines = lines.filter { mayRun(InteractiveMode.split($0)) }
        try sandbox?.reset()

        let console = FuzzConsole(lines: safeLines)
        let result = SecurityTool.result(arguments, console: console)
        guard [0, 1, 2].contains(result) || secBaseCodes.contains(where: { $0.status == result }) else {
            throw FuzzFailure("result \(result), which the tool does not document, for \(arguments.map(\.displayText))")
        }
        let global = OptionParser("hilp:qv").parse(arguments)
        let interactive = global.operands.isEmpty
        guard !interactive else { return }
        let commandWords = Array(arguments.suffix(global.operands.count))
        guard let name = commandWords[0].text, let command = CommandTable.command(named: name) else { return }
        let canary = Array(Self.canary.utf8)
        let shown = arguments.prefix(arguments.count - commandWords.count + 1)
            + ArgumentRedaction.redacted(Array(commandWords.dropFirst()), options: command.options)
        guard !shown.contains(where: { $0.bytes.contains(canary) }) else { return }
        if console.written.contains(canary) {
            throw FuzzFailure(
                "the password given to \(name) was printed: \(String(decoding: console.written, as: UTF8.self))")
        }
    }
}

/// A console that records what the tool prints, answers no password prompt, and gives
/// interactive mode its lines.
final class FuzzConsole: Console {
    private var lines: [[UInt8]]
    /// Standard output and standard error, in order.
    private(set) var written: [UInt8] = []

    init(lines: [[UInt8]] = []) { self.lines = lines }

    func writeOutput(_ bytes: [UInt8]) { written += bytes }
    func writeError(_ bytes: [UInt8]) { written += bytes }
    func readSecret(prompt: String) -> [UInt8]? { nil }
    func readCommandLine(prompt: String) -> [UInt8]? { lines.isEmpty ? nil : lines.removeFirst() }
}
