import Foundation
import Testing

@testable import KeychainCore

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

    @Test("the security command prints a secret only when asked to (-w, -g), and attribute values in no error")
    func commandLineOutput() throws {
        let directory = try TemporaryDirectory("hygiene-cli")
        let home = directory.file("home")
        let account = "acct-\(Self.attribute)"
        let service = "svc-\(Self.attribute)"
        func run(_ arguments: [String], input: String? = nil) throws -> (status: Int32, text: String) {
            let run = try Executables.runSecurity(arguments, home: home, input: input, in: directory.path)
            return (run.exitCode ?? -1, run.output + run.error)
        }
        // (arguments, may the attribute values appear: the command prints items or echoes them)
        let quiet: [([String], Bool)] = [
            (["add-generic-password", "-a", account, "-s", service, "-w", Self.secret], false),
            (["add-generic-password", "-a", account, "-s", service, "-w", Self.secret], false),
            (["-v", "add-generic-password", "-a", account, "-s", service, "-w", Self.secret], true),
            (["-v", "add-generic-password", "-a", account, "-s", service, "-w" + Self.secret, "-U"], true),
            (["add-generic-password", "-a", account, "-s", service, "-w", Self.secret, "-Z"], false),
            (["add-internet-password", "-a", account, "-s", service, "-w", Self.secret, "-P", "port"], false),
            (["find-generic-password", "-a", account, "-s", service], true),
            (["find-generic-password", "-a", "missing-\(Self.attribute)", "-s", service], false),
            (["delete-generic-password", "-a", "missing-\(Self.attribute)", "-s", service], false),
            (["find-internet-password", "-a", account, "-s", service], false),
            (["dump-keychain"], true),
        ]
        for (arguments, showsAttributes) in quiet {
            let (status, text) = try run(arguments)
            #expect(!Self.leaks(text, Self.secret), "\(arguments) (exit \(status)) printed the secret: \(text)")
            if !showsAttributes {
                #expect(!Self.leaks(text, Self.attribute), "\(arguments) (exit \(status)) printed an attribute value: \(text)")
            }
        }
        let interactive = try run(
            ["-i"], input: "add-generic-password -a \(account) -s \(service) -w \(Self.secret)\nbogus -w \(Self.secret)\n")
        #expect(!Self.leaks(interactive.text, Self.secret), "interactive mode printed the secret: \(interactive.text)")

        // The control: asked for the password, the tool prints it, so the checks above can fail.
        let asked = try run(["find-generic-password", "-a", account, "-s", service, "-g"])
        #expect(asked.status == 0 && asked.text.contains(Self.secret))
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
