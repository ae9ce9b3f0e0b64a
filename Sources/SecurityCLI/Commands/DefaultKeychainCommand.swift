/// `default-keychain [-d user|system|common|dynamic] [-s [keychain]]`: prints the default
/// keychain as `    "<path>"`, or with `-s` makes the named keychain the default (with no name,
/// the login keychain again). The default keychain is where `add-*` and the keychain commands
/// act when no keychain is named; `SecItem…` always uses the login keychain.
enum DefaultKeychainCommand {
    /// Runs the command.
    static func run(_ invocation: Invocation) throws -> Int32 {
        let options = try KeychainDomainOptions(parsing: invocation.arguments)
        let (domain, set, operands) = (options.domain, options.set, options.operands)
        guard operands.count <= (set ? 1 : 0) else { throw ToolError.usage(reason: nil) }
        if set {
            guard domain == .user else { throw domain.refuseSetting("SecKeychainSetDomainDefault") }
            try KeychainPreferences.setDefaultKeychain(operands.first.map(KeychainSession.path(of:)))
            return 0
        }
        if domain == .user {
            invocation.console.output("    \"\(KeychainSession.absolutePath(try KeychainPreferences.defaultKeychainPath))\"\n")
        }
        return 0
    }
}
