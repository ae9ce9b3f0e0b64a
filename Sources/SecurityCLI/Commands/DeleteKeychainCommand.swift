import Foundation
import KeychainCore
import Security

/// `delete-keychain keychain...`: deletes keychains (database and keybag; their items cannot be
/// recovered) and removes them from the search list. A keychain that does not exist is
/// errSecNoSuchKeychain (exit 50): `security: SecKeychainDelete: …`.
enum DeleteKeychainCommand {
    /// Runs the command.
    static func run(_ invocation: Invocation) throws -> Int32 {
        let parser = OptionParser("h")
        let scan = parser.parse(invocation.arguments)
        if let element = scan.elements.first { throw parser.usageError(for: element) }
        guard !scan.operands.isEmpty else { throw ToolError.usage(reason: nil) }
        for name in scan.operands {
            let path = KeychainSession.path(of: name)
            do {
                try Keychain.delete(path: path)
            } catch {
                throw ToolError.api("SecKeychainDelete", error)
            }
            try KeychainPreferences.forget(path)
        }
        return 0
    }
}
