import Foundation
import KeychainCore
import KeychainService
import Security

/// `create-keychain [-P] [-p password] [keychain...]`: creates keychains protected by a password
/// and adds them to the search list.
///
/// Without `-p` the password is asked for twice (`password for new keychain: `, `retype password
/// for new keychain: `, up to three tries), as macOS does; `-P` (macOS's dialog) asks the same
/// way. An empty password creates a keychain without one. Without a keychain name the name is
/// asked for (`keychain to create: `). An empty name (or a path ending in `/`) is bad usage: it
/// would name a hidden `.keychain-db`; no keychain is created then. An existing keychain is
/// errSecDuplicateKeychain (exit 48), reported as `security: SecKeychainCreate <name>: …`.
struct CreateKeychainCommand: CommandDefinition {
    let name = "create-keychain"
    let usage = """
        [-P] [-p password] [keychains...]
            -p  Use "password" as the new keychains' password
            -P  Ask for the password (on the terminal; there is no dialog)
        Without -p the password is asked for twice; an empty one means none.
        """
    let summary = "Create keychains and add them to the search list."
    let options = OptionParser("hp:P", secrets: ["p"])

    func run(_ invocation: Invocation) throws -> Int32 {
        var password: [UInt8]?
        for element in invocation.scan.elements {
            switch element {
            case .secret("p", let value): password = value
            case .option("P", _): break
            default: throw invocation.usageError(for: element)
            }
        }
        defer { if password != nil { SecretWiping.wipe(&password!) } }
        let console = invocation.console
        var names = invocation.scan.operands
        guard !names.contains(where: { $0.isEmpty || $0.hasSuffix("/") }) else {
            throw ToolError.usage(reason: "a keychain name cannot be empty")
        }
        if names.isEmpty {
            console.error("keychain to create: ")
            guard let line = console.readCommandLine(prompt: ""), !line.isEmpty else {
                throw ToolError.failed(result: 1, message: nil)
            }
            guard let name = Argument(line).text else { throw ToolError.usage(reason: "an argument is not valid UTF-8") }
            names = [name]
        }
        if password == nil {
            password = try Self.promptTwice(console, first: "password for new keychain: ", second: "retype password for new keychain: ")
        }
        for name in names {
            let path = KeychainSession.path(of: name)
            do {
                _ = try KeychainConnector.create(path: path, passcode: Data(password ?? []), context: try KeychainSession.embeddedContext())
            } catch {
                throw ToolError.api("SecKeychainCreate \(name)", error)
            }
            try KeychainPreferences.addToSearchList(path)
        }
        return 0
    }

    /// Asks for a new password twice, up to three tries (`passwords don't match` after a mismatch).
    ///
    /// - Throws: `ToolError.failed(1)` after three mismatches or at the end of input.
    static func promptTwice(_ console: any Console, first: String, second: String) throws -> [UInt8] {
        for _ in 0..<3 {
            guard var entered = console.readSecret(prompt: first) else {
                throw ToolError.failed(result: 1, message: "security: no password was entered\n")
            }
            guard var again = console.readSecret(prompt: second) else {
                SecretWiping.wipe(&entered)
                throw ToolError.failed(result: 1, message: "security: no password was entered\n")
            }
            defer { SecretWiping.wipe(&again) }
            if SecretWiping.equal(entered, again) { return entered }
            SecretWiping.wipe(&entered)
            console.error("passwords don't match\n")
        }
        throw ToolError.failed(result: 1, message: nil)
    }
}
