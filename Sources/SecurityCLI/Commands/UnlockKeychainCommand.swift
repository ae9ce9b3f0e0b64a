import KeychainCore
import Security

/// `unlock-keychain [-u] [-p password] [keychain]`: checks the keychain's password and unlocks the
/// keychain in this process (the default keychain when none is named).
///
/// Without `-p` the password is asked for (`password to unlock <name>: `, "default" for the
/// default keychain); `-u` (macOS: use the dialog) asks the same way. A wrong password is
/// errSecAuthFailed (exit 51), counted towards the escalating delays, which the message then
/// states. As with `lock-keychain`, the unlock lasts as long as the process: in interactive
/// mode (`security -i`) later commands read the keychain's items without asking again.
struct UnlockKeychainCommand: CommandDefinition {
    let name = "unlock-keychain"
    let usage = """
        [-u] [-p password] [keychain]
            -p  Unlock with "password"
            -u  Ask for the password (on the terminal; there is no dialog)
        The unlock lasts as long as this process (use security -i to keep one).
        """
    let summary = "Unlock the specified keychain."
    let options = OptionParser("hp:u", secrets: ["p"])

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var password: [UInt8]?
        for element in scan.elements {
            switch element {
            case .secret("p", let value): password = value
            case .option("u", _): break
            default: throw invocation.usageError(for: element)
            }
        }
        defer { if password != nil { SecretWiping.wipe(&password!) } }
        guard scan.operands.count <= 1, scan.operands.first?.isEmpty != true else { throw ToolError.usage(reason: nil) }
        let name = scan.operands.first
        let keychain = try name.map(KeychainSession.open) ?? KeychainSession.openDefault()
        if password == nil {
            password = invocation.console.readSecret(prompt: "password to unlock \(name ?? "default"): ")
            guard password != nil else {
                throw ToolError.failed(result: 1, message: "security: no password was entered\n")
            }
        }
        try KeychainSession.unlock(keychain, password: password ?? [], api: "SecKeychainUnlock \(name ?? "<NULL>")")
        return 0
    }
}
