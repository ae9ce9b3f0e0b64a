import Foundation
import KeychainCore
import Security

/// `create-keychain [-P] [-p password] [keychain...]`: creates keychains protected by a password
/// and adds them to the search list.
///
/// Without `-p` the password is asked for twice (`password for new keychain: `, `retype password
/// for new keychain: `, up to three tries), as macOS does; `-P` (macOS's dialog) asks the same
/// way. An empty password creates a keychain without one. Without a keychain name the name is
/// asked for (`keychain to create: `). An existing keychain is errSecDuplicateKeychain (exit 48),
/// reported as `security: SecKeychainCreate <name>: …`.
enum CreateKeychainCommand {
    /// Runs the command.
    static func run(_ invocation: Invocation) throws -> Int32 {
        let parser = OptionParser("hp:P")
        let scan = parser.parse(invocation.arguments)
        var password: [UInt8]?
        for element in scan.elements {
            switch element {
            case .option("p", let value): password = Array((value ?? "").utf8)
            case .option("P", _): break
            default: throw parser.usageError(for: element)
            }
        }
        defer { if password != nil { SecretWiping.wipe(&password!) } }
        let console = invocation.console
        var names = scan.operands
        if names.isEmpty {
            console.error("keychain to create: ")
            guard let name = console.readCommandLine(prompt: ""), !name.isEmpty else {
                throw ToolError.failed(result: 1, message: nil)
            }
            names = [name]
        }
        if password == nil {
            password = try promptTwice(console, first: "password for new keychain: ", second: "retype password for new keychain: ")
        }
        for name in names {
            let path = KeychainSession.path(of: name)
            do {
                try Keychain.create(path: path, passcode: Data(password ?? []))
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
