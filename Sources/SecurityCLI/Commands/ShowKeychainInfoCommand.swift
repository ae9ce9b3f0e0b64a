import KeychainCore

/// `show-keychain-info [keychain]`: prints a keychain's lock settings to standard error, as
/// macOS does: `Keychain "<name>"[ lock-on-sleep][ use-lock-interval] no-timeout|timeout=<N>s`,
/// where the name is the argument as given, or `<NULL>` for the default keychain.
struct ShowKeychainInfoCommand: CommandDefinition {
    let name = "show-keychain-info"
    let usage = "[keychain]"
    let summary = "Show the settings for keychain."
    let options = OptionParser.operandsOnly

    func run(_ invocation: Invocation) throws -> Int32 {
        if let element = invocation.scan.elements.first { throw invocation.usageError(for: element) }
        let arguments = invocation.scan.operands
        guard arguments.count <= 1, arguments.first != "-h", arguments.first?.isEmpty != true else {
            throw ToolError.usage(reason: nil)
        }
        let name = arguments.first
        let keychain = try name.map(KeychainSession.open) ?? KeychainSession.openDefault()
        let settings: KeychainSettings
        do {
            settings = try keychain.settings()
        } catch {
            throw ToolError.api("SecKeychainCopySettings \(name ?? "<NULL>")", error)
        }
        var line = "Keychain \"\(name ?? "<NULL>")\""
        if settings.lockOnSleep { line += " lock-on-sleep" }
        if settings.useLockInterval { line += " use-lock-interval" }
        line += settings.lockInterval.map { " timeout=\($0)s" } ?? " no-timeout"
        invocation.console.error(line + "\n")
        return 0
    }
}
