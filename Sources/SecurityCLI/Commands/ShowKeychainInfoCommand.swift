import KeychainCore

/// `show-keychain-info [keychain]`: prints a keychain's lock settings to standard error, as
/// macOS does: `Keychain "<name>"[ lock-on-sleep][ use-lock-interval] no-timeout|timeout=<N>s`,
/// where the name is the argument as given, or `<NULL>` for the default keychain. Two lines on
/// standard output (which macOS does not print) say how the device key is kept
/// (`device key: sealed by the TPM (opens on this machine only)`, `device key: in a file (not
/// bound to a TPM)`, or `device key: not readable by this user` when the daemon keeps it), then
/// who holds the keychain's keys and its lock state:
/// `held by keychaind (pid <N>): unlocked|locked|locked since start` or `open in this process: …`.
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
        let status: KeychainStatus
        do {
            settings = try keychain.settings()
            status = try keychain.status()
        } catch {
            throw ToolError.api("SecKeychainCopySettings \(name ?? "<NULL>")", error)
        }
        var line = "Keychain \"\(name ?? "<NULL>")\""
        if settings.lockOnSleep { line += " lock-on-sleep" }
        if settings.useLockInterval { line += " use-lock-interval" }
        line += settings.lockInterval.map { " timeout=\($0)s" } ?? " no-timeout"
        invocation.console.error(line + "\n")
        let holder = status.daemonProcess.map { "held by keychaind (pid \($0))" } ?? "open in this process"
        let state: String
        switch status.lockState {
        case .unlocked: state = status.hasPasscode ? "unlocked" : "unlocked (no password)"
        case .locked: state = "locked"
        case .beforeFirstUnlock: state = "locked since start"
        }
        let binding: String
        switch try? Keychain.deviceBinding(ofKeychainAt: keychain.path) {
        case .tpm?: binding = "sealed by the TPM (opens on this machine only)"
        case .file?: binding = "in a file (not bound to a TPM)"
        case nil: binding = "not readable by this user"
        }
        invocation.console.output("device key: \(binding)\n\(holder): \(state)\n")
        return 0
    }
}
