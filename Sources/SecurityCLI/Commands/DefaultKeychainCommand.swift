/// `default-keychain [-d user|system|common|dynamic] [-s [keychain]]`: prints the default
/// keychain as `    "<path>"`, or with `-s` makes the named keychain the default (with no name,
/// the login keychain again). The default keychain is where `add-*` and the keychain commands
/// act when no keychain is named; `SecItem…` always uses the login keychain.
struct DefaultKeychainCommand: CommandDefinition {
    let name = "default-keychain"
    let usage = """
        [-d user|system|common|dynamic] [-s [keychain]]
            -d  Use the given preference domain
            -s  Make the given keychain the default
        With no options, print the default keychain.
        """
    let summary = "Display or set the default keychain."
    let options = KeychainDomainOptions.specification

    func run(_ invocation: Invocation) throws -> Int32 {
        let options = try KeychainDomainOptions(invocation)
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
