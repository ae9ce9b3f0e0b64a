import Foundation
import KeychainCore
import KeychainService
import Security

/// `delete-keychain keychain...`: deletes keychains (database and keybag; their items cannot be
/// recovered) and removes them from the search list. A keychain that does not exist is
/// errSecNoSuchKeychain (exit 50): `security: SecKeychainDelete: …`.
struct DeleteKeychainCommand: CommandDefinition {
    let name = "delete-keychain"
    let usage = "keychain..."
    let summary = "Delete keychains and remove them from the search list."
    let options = OptionParser("h")

    func run(_ invocation: Invocation) throws -> Int32 {
        if let element = invocation.scan.elements.first { throw invocation.usageError(for: element) }
        guard !invocation.scan.operands.isEmpty else { throw ToolError.usage(reason: nil) }
        for name in invocation.scan.operands {
            let path = KeychainSession.path(of: name)
            do {
                try KeychainConnector.delete(path: path)
            } catch {
                throw ToolError.api("SecKeychainDelete", error)
            }
            try KeychainPreferences.forget(path)
        }
        return 0
    }
}
