import Foundation
import Testing

@testable import SecurityCLI

/// `security -v` echoes each command line with the value of every secret option masked: the
/// options each command's own definition declares secret, on lines the command accepts and on
/// lines that are bad usage, through the built binary.
@Suite struct SecretOptionEchoTests {
    /// The options whose values are passwords or passphrases, as macOS's `security(1)` documents
    /// each command: the definitions must declare exactly these.
    static let documentedSecrets: [String: Set<Character>] = [
        "create-keychain": ["p"], "unlock-keychain": ["p"], "set-keychain-password": ["o", "p"],
        "backup-keychain": ["P"], "restore-keychain": ["P"], "add-generic-password": ["w", "p", "X"],
        "add-internet-password": ["w", "X"], "export": ["P"], "import": ["P"],
        "set-generic-password-partition-list": ["k"], "set-internet-password-partition-list": ["k"],
        "set-key-partition-list": ["k"],
    ]

    /// The commands with a secret option.
    static let commandsWithSecrets = CommandTable.commands.filter { !$0.options.secrets.isEmpty }.map(\.name)

    @Test("every command's definition declares exactly the secret options macOS documents")
    func definitionsDeclareTheDocumentedSecrets() {
        for command in CommandTable.commands {
            #expect(Set(command.options.secrets) == Self.documentedSecrets[command.name] ?? [], "\(command.name)")
        }
        #expect(Set(Self.commandsWithSecrets) == Set(Self.documentedSecrets.keys))
    }

    /// Command lines that give option `letter` the value `secret`: ones the command's scan reads
    /// and ones that are bad usage (the option after an operand, after an unknown option, after
    /// `--`, after a missing input file).
    static func lines(_ command: any CommandDefinition, _ letter: Character, _ secret: String) -> [[String]] {
        let leading = command.options.leadingOperands > 0 ? ["input.p12"] : []
        let flag = "ahlrsuvwxAPTU".first { command.options.parse(leading + ["-\($0)"]).elements == [.option($0, nil)] }
        var lines = [
            leading + ["-\(letter)", secret],
            leading + ["-\(letter)\(secret)"],
            leading + ["operand", "-\(letter)", secret],
            leading + ["operand", "-\(letter)\(secret)"],
            leading + ["-!", "-\(letter)", secret],
            leading + ["--", "-\(letter)", secret],
            leading + ["-\(letter)", secret, "-\(letter)"],
            ["-\(letter)", secret],
        ]
        if let flag { lines.append(leading + ["-\(flag)\(letter)", secret]) }
        return lines
    }

    @Test("the -v echo masks every secret option's value, on accepted lines and on bad usage", arguments: commandsWithSecrets)
    func verboseEchoMasksEverySecret(_ name: String) throws {
        let tool = try SecurityBinary()
        let command = try #require(CommandTable.command(named: name))
        for letter in command.options.secrets.sorted() {
            // -X takes hexadecimal digits: a valid value reaches the add.
            let secret = letter == "X" ? "5A7137ECC0DE5EC2E7" : "Zq7-echo-\(letter)-secret"
            for line in Self.lines(command, letter, secret) {
                let run = try tool.run(arguments: ["-v", name] + line)
                let echo = run.error.prefix { $0 != "\n" }
                #expect(echo.hasPrefix(name + " \""), "\(line): \(run.error)")
                #expect(echo.contains(ArgumentRedaction.mask), "\(line): \(echo)")
                #expect(!run.error.contains(secret) && !run.output.contains(secret), "\(name) \(line) printed: \(run.error)")
            }
        }
    }

    @Test("import -P and unlock-keychain -p after an operand stay masked")
    func reportedCommandLinesStayMasked() throws {
        let tool = try SecurityBinary()
        let imported = try tool.run("-v", "import", "f.p12", "-P", "secret")
        #expect(imported.status == 1)
        #expect(imported.error == "import \"f.p12\" \"-P\" \"********\"\nsecurity: f.p12: No such file or directory\n")
        let unlock = try tool.run("-v", "unlock-keychain", "kc", "-p", "X")
        #expect(unlock.status == 2)
        #expect(unlock.error.hasPrefix("unlock-keychain \"kc\" \"-p\" \"********\"\nUsage: unlock-keychain "))
    }

    @Test("redaction masks exactly the values the command's scan reads as secrets on a line it accepts")
    func redactionFollowsTheScan() throws {
        let add = try #require(CommandTable.command(named: "add-generic-password"))
        // getopt reads "-w" as the value of -a here, and "-s" as the password.
        #expect(
            ArgumentRedaction.echo(command: add, arguments: ["-a", "-w", "-s", "svc", "-w", "-s"])
                == "add-generic-password \"-a\" \"-w\" \"-s\" \"svc\" \"-w\" \"********\"\n")
        let importCommand = try #require(CommandTable.command(named: "import"))
        // `-a` takes two words; the one after them is the passphrase option's.
        #expect(
            ArgumentRedaction.echo(command: importCommand, arguments: ["f.p12", "-a", "-P", "x", "-P", "pass"])
                == "import \"f.p12\" \"-a\" \"-P\" \"x\" \"-P\" \"********\"\n")
    }
}
