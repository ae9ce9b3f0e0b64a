import KeychainCore

/// `lock-keychain [-a | keychain]`: locks a keychain (the default one when none is named, every
/// keychain of the search list with `-a`) in this process.
///
/// A lock is a property of the process holding the keychain, and each run of the tool is its own
/// process, which starts locked anyway when the keychain has a password: the command matters in
/// interactive mode (`security -i`), where later commands see the keychain locked.
struct LockKeychainCommand: CommandDefinition {
    let name = "lock-keychain"
    let usage = """
        [-a | keychain]
            -a  Lock every keychain of the search list
        The lock lasts as long as this process (use security -i to keep one).
        """
    let summary = "Lock the specified keychain."
    let options = OptionParser("ah")

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var all = false
        for element in scan.elements {
            guard case .option("a", _) = element else { throw invocation.usageError(for: element) }
            all = true
        }
        guard scan.operands.count <= (all ? 0 : 1), scan.operands.first?.isEmpty != true else {
            throw ToolError.usage(reason: nil)
        }
        if all {
            for keychain in try KeychainSession.searchList([]) { try keychain.lock() }
        } else {
            try (scan.operands.first.map(KeychainSession.open) ?? KeychainSession.openDefault()).lock()
        }
        return 0
    }
}
