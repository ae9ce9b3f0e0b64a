import Foundation
import Testing

@testable import KeychainCore
import Security

/// Secrets and attribute values never reach output, logs or error texts (docs/reliability.md §5).
@Suite("Secret hygiene")
struct SecretHygieneTests {
    static let secret = "Zq7-SECRET-CANARY-91f3c0"
    static let attribute = "Zq7-ATTR-CANARY-55ab"

    /// Every way the canary might be spelled in output.
    static func spellings(_ canary: String) -> [String] {
        [canary, canary.lowercased(), canary.uppercased(), Data(canary.utf8).map { String(format: "%02x", $0) }.joined(),
         Data(canary.utf8).map { String(format: "%02X", $0) }.joined(), Data(canary.utf8).base64EncodedString()]
    }

    static func leaks(_ text: String, _ canary: String) -> Bool {
        spellings(canary).contains { text.contains($0) }
    }

    /// One run of the `security` command in the hygiene test: its command line, what it reads
    /// on standard input, the exit status that shows it reached the code handling the secret,
    /// and whether it may print attribute values (it prints items, or echoes its command line).
    struct CommandCase: CustomStringConvertible {
        let arguments: [String]
        var input: String? = nil
        let status: Int32
        var showsAttributes = false
        var description: String { arguments.joined(separator: " ") }
    }

    @Test("the security command prints a secret only when asked to (-w, -g, -d), and attribute values in no error")
    func commandLineOutput() throws {
        let directory = try TemporaryDirectory("hygiene-cli")
        let home = directory.file("home")
        let account = "acct-\(Self.attribute)"
        let service = "svc-\(Self.attribute)"
        let secret = Self.secret
        let hexSecret = Data(secret.utf8).map { String(format: "%02x", $0) }.joined()
        // The importer fuzzer's PKCS#12 seed (after its selector byte), passphrase "fuzz".
        let pkcs12 = directory.file("identity.p12")
        let seed = try Data(contentsOf: FuzzRegressionTests.inputs.appendingPathComponent("importers/seed-pkcs12-modern"))
        try seed.dropFirst().write(to: URL(fileURLWithPath: pkcs12))
        // Each run of the tool finds every keychain locked, as a new process opening the keychain
        // itself does; through the daemon, whose lock state outlives a run, the test's own daemon
        // is restarted before each run.
        let daemon = PrivateDaemon()
        func run(_ arguments: [String], input: String? = nil) throws -> (status: Int32, text: String) {
            daemon.stop()
            let run = try Executables.runSecurity(arguments, home: home, environment: daemon.environment, input: input, in: directory.path)
            return (run.exitCode ?? -1, run.output + run.error)
        }
        // The keychains and files the cases use: a keychain with a password (so every run of the
        // tool finds it locked), a backup made with another passphrase, an identity to export.
        for setup in [
            ["create-keychain", "-p", "lock-password", "locked"],
            ["backup-keychain", "-P", "backup-passphrase", "-o", directory.file("other.backup")],
            ["import", pkcs12, "-f", "pkcs12", "-P", "fuzz"],
        ] {
            let (status, text) = try run(setup)
            try #require(status == 0, "\(setup): \(text)")
        }
        let cases: [CommandCase] = [
            // The add stores the secret; the second meets the first (45) with the secret in hand.
            CommandCase(arguments: ["add-generic-password", "-a", account, "-s", service, "-w", secret], status: 0),
            CommandCase(arguments: ["add-generic-password", "-a", account, "-s", service, "-w", secret], status: 45),
            CommandCase(
                arguments: ["-v", "add-generic-password", "-a", account, "-s", service, "-w", secret], status: 45,
                showsAttributes: true),
            // -U: the add meets the item and updates it with the secret.
            CommandCase(
                arguments: ["-v", "add-generic-password", "-a", account, "-s", service, "-w" + secret, "-U"], status: 0,
                showsAttributes: true),
            CommandCase(arguments: ["add-generic-password", "-a", account, "-s", service, "-X", hexSecret, "-U"], status: 0),
            CommandCase(arguments: ["add-internet-password", "-a", account, "-s", service, "-w", secret, "-P", "443"], status: 0),
            CommandCase(arguments: ["add-internet-password", "-a", account, "-s", service, "-w", secret, "-P", "443"], status: 45),
            // A locked keychain: the add asks for its password, gets none (36) or a wrong one (51).
            CommandCase(arguments: ["add-generic-password", "-a", account, "-s", service, "-w", secret, "locked"], status: 36),
            CommandCase(
                arguments: ["add-generic-password", "-a", account, "-s", service, "-w", secret, "locked"],
                input: "wrong-password\n", status: 51),
            // The secret as a keychain password or passphrase that is checked and is wrong.
            CommandCase(arguments: ["unlock-keychain", "-p", secret, "locked"], status: 51),
            CommandCase(arguments: ["-v", "unlock-keychain", "-p", secret, "locked"], status: 51, showsAttributes: true),
            CommandCase(arguments: ["set-keychain-password", "-o", secret, "-p", "new-password", "locked"], status: 51),
            CommandCase(arguments: ["restore-keychain", "-P", secret, directory.file("other.backup")], status: 51),
            CommandCase(arguments: ["import", pkcs12, "-f", "pkcs12", "-P", secret], status: 51),
            // The secret as a new password or passphrase.
            CommandCase(arguments: ["create-keychain", "-p", secret, "locked"], status: 48),
            CommandCase(arguments: ["backup-keychain", "-P", secret, "-o", directory.file("canary.backup")], status: 0),
            CommandCase(
                arguments: ["export", "-t", "identities", "-f", "pkcs12", "-P", secret, "-o", directory.file("out.p12")], status: 0),
            // Items holding the secret, found, missing, deleted, dumped.
            CommandCase(arguments: ["find-generic-password", "-a", account, "-s", service], status: 0, showsAttributes: true),
            CommandCase(arguments: ["find-internet-password", "-a", account, "-s", service], status: 0, showsAttributes: true),
            CommandCase(arguments: ["find-generic-password", "-a", "missing-\(Self.attribute)", "-s", service], status: 44),
            CommandCase(arguments: ["find-internet-password", "-a", "missing-\(Self.attribute)", "-s", service], status: 44),
            CommandCase(arguments: ["delete-generic-password", "-a", "missing-\(Self.attribute)", "-s", service], status: 44),
            CommandCase(arguments: ["dump-keychain"], status: 0, showsAttributes: true),
            CommandCase(
                arguments: ["-i"],
                input: "add-generic-password -a \(account)-2 -s \(service) -w \(secret)\nbogus -w \(secret)\n", status: 1),
        ]
        for command in cases {
            let (status, text) = try run(command.arguments, input: command.input)
            #expect(status == command.status, "\(command): exit \(status), expected \(command.status): \(text)")
            #expect(!Self.leaks(text, secret), "\(command) (exit \(status)) printed the secret: \(text)")
            if !command.showsAttributes {
                #expect(!Self.leaks(text, Self.attribute), "\(command) (exit \(status)) printed an attribute value: \(text)")
            }
        }

        // The controls: asked for the password, the tool prints it, so the checks above can fail.
        let asked = try run(["find-generic-password", "-a", account, "-s", service, "-g"])
        #expect(asked.status == 0 && Self.leaks(asked.text, secret))
        let dumped = try run(["dump-keychain", "-d"])
        #expect(dumped.status == 0 && Self.leaks(dumped.text, secret))
    }

    @Test("SecItem calls and their errors, succeeding or failing, print no secret and no attribute value")
    func securityAPIOutput() throws {
        let directory = try TemporaryDirectory("hygiene-api")
        let probe = try Executables.runHelper(
            ["hygiene-probe", "--home", directory.file("home"), "--canary", Self.secret], in: directory.path)
        let text = probe.output + probe.error
        #expect(probe.exitCode == 0, "\(probe.error)")
        #expect(text.contains("add: 0 ") && text.contains("add duplicate: -25299 ") && text.contains("done"))
        #expect(text.contains("SecAccessControlCreateWithFlags: -50 "), "the CFError checks did not run: \(text)")
        #expect(text.contains("SecKeyCreateRandomKey: "), "the CFError checks did not run: \(text)")
        #expect(!Self.leaks(text, Self.secret), "the canary appeared in the output:\n\(text)")
    }

    @Test("engine errors name keys and classes, never the values or secrets they were given")
    func engineErrorTexts() throws {
        let canary = Self.secret
        let dictionaries: [[String: RequestValue]] = [
            ["class": .string(canary)],
            ["class": .string("genp"), "pdmn": .string(canary)],
            ["class": .string("genp"), "v_Data": .string(canary)],
            ["class": .string("genp"), "m_Limit": .string(canary)],
            ["class": .string("genp"), "r_Data": .string(canary)],
            ["class": .string("genp"), "u_AuthUI": .string(canary)],
            ["class": .string("genp"), "sync": .string(canary)],
            ["class": .string("genp"), "cdat": .string(canary)],
            ["class": .string("genp"), "acct": .array([.string(canary)])],
            ["class": .string("genp"), "klbl": .data(Data(canary.utf8))],
            ["class": .string("inet"), "port": .string(canary + "x"), "v_Data": .data(Data(canary.utf8))],
            ["class": .string("genp"), "v_PersistentRef": .data(Data(canary.utf8))],
        ]
        var texts: [String] = []
        for dictionary in dictionaries {
            for operation in [ItemOperation.add, .copyMatching, .update, .delete] {
                do {
                    _ = try RequestParser.parse(dictionary, for: operation)
                } catch {
                    texts.append(String(describing: error))
                }
            }
            do {
                _ = try RequestParser.parseChanges(dictionary.filter { $0.key != "class" }, for: .genericPassword)
            } catch {
                texts.append(String(describing: error))
            }
        }

        let temporary = try TemporaryDirectory("hygiene-engine")
        let keychain = try Keychain.open(path: temporary.file("k/test.keychain-db"))
        let context = AccessContext(accessGroups: ["group-a"])
        var item = ItemRequest(itemClass: .genericPassword)
        item.attributes = ["acct": .string(canary), "svce": .string(canary), "labl": .string(canary)]
        item.secret = Data(canary.utf8)
        _ = try keychain.add(item, context: context)
        var foreignGroup = item
        foreignGroup.attributes["agrp"] = .string(canary)
        var missing = ItemRequest(itemClass: .genericPassword)
        missing.attributes = ["acct": .string("missing-" + canary)]
        var changes = ItemChanges()
        changes.attributes["acct"] = .string(canary + "-2")
        let failing: [() throws -> Void] = [
            { _ = try keychain.add(item, context: context) },
            { _ = try keychain.add(foreignGroup, context: context) },
            { _ = try keychain.search(missing, context: context) },
            { try keychain.update(missing, changes: changes, context: context) },
            { _ = try keychain.delete(missing, context: context) },
            { _ = try keychain.search(foreignGroup, context: context) },
        ]
        let parserTexts = texts.count
        for call in failing {
            do { try call() } catch { texts.append(String(describing: error)) }
        }
        #expect(parserTexts >= dictionaries.count * 4, "too few parser calls failed: \(parserTexts)")
        #expect(texts.count == parserTexts + failing.count, "an engine call that must fail succeeded")
        for text in texts {
            #expect(!Self.leaks(text, canary), "an error text holds a value: \(text)")
        }
    }
}
