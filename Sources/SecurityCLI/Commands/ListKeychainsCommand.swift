/// `list-keychains [-d user|system|common|dynamic] [-s [keychain...]]`: prints the keychain
/// search list, one `    "<path>"` line per keychain (as macOS prints it), or with `-s` replaces
/// it. The search list is where `find-*` and `dump-keychain` look when no keychain is named.
struct ListKeychainsCommand: CommandDefinition {
    let name = "list-keychains"
    let usage = """
        [-d user|system|common|dynamic] [-s [keychain...]]
            -d  Use the given preference domain
            -s  Set the search list to the given keychains
        With no options, print the search list.
        """
    let summary = "Display or manipulate the keychain search list."
    let options = KeychainDomainOptions.specification

    func run(_ invocation: Invocation) throws -> Int32 {
        let options = try KeychainDomainOptions(invocation)
        let (domain, set, operands) = (options.domain, options.set, options.operands)
        if set {
            guard domain == .user else { throw domain.refuseSetting("SecKeychainSetDomainSearchList") }
            try KeychainPreferences.setSearchList(operands.map(KeychainSession.path(of:)))
            return 0
        }
        guard operands.isEmpty else { throw ToolError.usage(reason: nil) }
        let list = domain == .user ? try KeychainPreferences.searchList.map(KeychainSession.absolutePath) : []
        invocation.console.output(list.map { "    \"\($0)\"\n" }.joined())
        return 0
    }
}
