import Foundation
import KeychainCore
import Security

/// `set-keychain-password [-o oldPassword] [-p newPassword] [keychain]`: sets, changes or (with
/// an empty new password) removes a keychain's password.
///
/// Passwords not given are asked for: `Old Password: `, `New Password: `, `Retype New Password: `
/// (an empty old password for a keychain that has none). A retyped password that differs, or a
/// missing one, fails with `security: try again` (exit 1); a wrong old password is
/// errSecAuthFailed (exit 51) as `security: error changing password for "<name>": …`.
/// Removing the password deletes the items that require one
/// (`kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`); the command says how many.
struct SetKeychainPasswordCommand: CommandDefinition {
    let name = "set-keychain-password"
    let usage = """
        [-o oldPassword] [-p newPassword] [keychain]
            -o  The current password (asked for when omitted)
            -p  The new password (asked for when omitted; empty removes the password)
        """
    let summary = "Set password for a keychain."
    let options = OptionParser("ho:p:", secrets: ["o", "p"])

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var old: [UInt8]?
        var new: [UInt8]?
        for element in scan.elements {
            switch element {
            case .secret("o", let value): old = value
            case .secret("p", let value): new = value
            default: throw invocation.usageError(for: element)
            }
        }
        defer {
            if old != nil { SecretWiping.wipe(&old!) }
            if new != nil { SecretWiping.wipe(&new!) }
        }
        guard scan.operands.count <= 1, scan.operands.first?.isEmpty != true else { throw ToolError.usage(reason: nil) }
        let name = scan.operands.first
        let keychain = try name.map(KeychainSession.open) ?? KeychainSession.openDefault()
        let console = invocation.console
        if old == nil { old = console.readSecret(prompt: "Old Password: ") }
        if new == nil, var entered = console.readSecret(prompt: "New Password: ") {
            defer { SecretWiping.wipe(&entered) }
            if var again = console.readSecret(prompt: "Retype New Password: ") {
                if SecretWiping.equal(entered, again) { new = entered }
                SecretWiping.wipe(&again)
            }
        }
        guard let oldPassword = old, let newPassword = new else {
            throw ToolError.failed(result: 1, message: "security: try again\n")
        }
        let deleted: Int
        do {
            deleted = try keychain.changePasscode(from: Data(oldPassword), to: Data(newPassword))
        } catch let error as KeychainError {
            let status = StatusMapping.status(for: error)
            var message = "security: error changing password for \"\(name ?? "<NULL>")\": \(ToolError.text(for: status))\n"
            message += ToolError.unsafeFileLines(error)
            if error.code == .authFailed, let delay = try? keychain.status().passcodeRetryDelay {
                message += "security: too many failed attempts; try again in \(Int(delay.rounded(.up))) seconds\n"
            }
            throw ToolError.failed(result: status, message: message)
        }
        if deleted > 0 {
            console.error("security: \(deleted) item\(deleted == 1 ? "" : "s") that required the keychain password (kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly) deleted\n")
        }
        return 0
    }
}
