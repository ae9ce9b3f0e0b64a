import KeychainCore

/// `set-keychain-settings [-lu] [-t timeout] [keychain]`: sets a keychain's lock settings, as
/// macOS does: `-l` lock on sleep, `-t` lock after that many seconds without use (which implies
/// `-u`); without `-t` there is no timeout, whatever `-u` says. A timeout that is not a number of
/// seconds is bad usage (macOS reads it with `atoi`).
struct SetKeychainSettingsCommand: CommandDefinition {
    let name = "set-keychain-settings"
    let usage = """
        [-lu] [-t timeout] [keychain]
            -l  Lock the keychain when the system sleeps
            -u  Lock the keychain after the timeout
            -t  Timeout in seconds (without it, there is no timeout)
        """
    let summary = "Set settings for a keychain."
    let options = OptionParser("hlt:u")

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var settings = KeychainSettings()
        for element in scan.elements {
            switch element {
            case .option("l", _): settings.lockOnSleep = true
            case .option("u", _): break
            case .option("t", let value):
                guard let seconds = value.flatMap({ Int($0) }), seconds >= 0, seconds < Int(Int32.max) else {
                    throw ToolError.usage(reason: "invalid timeout: \(value ?? "")")
                }
                settings.lockInterval = seconds
            default: throw invocation.usageError(for: element)
            }
        }
        settings.useLockInterval = settings.lockInterval != nil
        guard scan.operands.count <= 1, scan.operands.first?.isEmpty != true else { throw ToolError.usage(reason: nil) }
        let name = scan.operands.first
        let keychain = try name.map(KeychainSession.open) ?? KeychainSession.openDefault()
        do {
            try keychain.updateSettings(settings)
        } catch {
            throw ToolError.api("SecKeychainSetSettings \(name ?? "<NULL>")", error)
        }
        return 0
    }
}
