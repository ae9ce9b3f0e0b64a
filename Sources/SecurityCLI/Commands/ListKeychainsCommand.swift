/// `list-keychains [-d user|system|common|dynamic] [-s [keychain...]]`: prints the keychain
/// search list, one `    "<path>"` line per keychain (as macOS prints it), or with `-s` replaces
/// it. The search list is where `find-*` and `dump-keychain` look when no keychain is named.
enum ListKeychainsCommand {
    /// Runs the command.
    static func run(_ invocation: Invocation) throws -> Int32 {
        let parser = OptionParser("d:hs")
        let scan = parser.parse(invocation.arguments)
        var domain = KeychainDomain.user
        var set = false
        for element in scan.elements {
            switch element {
            case .option("d", let value): domain = try KeychainDomain.parse(value ?? "")
            case .option("s", _): set = true
            default: throw parser.usageError(for: element)
            }
        }
        if set {
            guard domain == .user else { throw domain.refuseSetting("SecKeychainSetDomainSearchList") }
            try KeychainPreferences.setSearchList(scan.operands.map(KeychainSession.path(of:)))
            return 0
        }
        guard scan.operands.isEmpty else { throw ToolError.usage(reason: nil) }
        let list = domain == .user ? KeychainPreferences.searchList.map(KeychainSession.absolutePath) : []
        invocation.console.output(list.map { "    \"\($0)\"\n" }.joined())
        return 0
    }
}
