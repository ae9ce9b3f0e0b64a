import KeychainCore

/// `delete-generic-password` and `delete-internet-password`.
///
/// Deletes the first matching item: prints its attributes on standard output, then
/// `password has been deleted.` on standard error. With no match criterion at all the command
/// refuses to run (usage, exit status 2); with no match it is errSecItemNotFound (44).
enum DeletePasswordCommand {
    /// Runs the command.
    static func run(_ invocation: Invocation, kind: PasswordKind) throws -> Int32 {
        let options = try PasswordItemOptions.parse(invocation.arguments, kind: kind, operation: .delete)
        let keychains = try KeychainSession.searchList(options.keychains)
        var request = options.searchRequest(kind)
        request.returns = [.attributes]
        let (item, keychain) = try PasswordSearch.first(request, in: keychains, for: invocation)

        invocation.console.writeOutput(ItemPrinter.render(item, keychainPath: keychain.path))
        do {
            let context = try KeychainSession.context(api: "SecKeychainItemDelete")
            _ = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try keychain.delete(.exactly(item), context: context)
            }
        } catch {
            throw ToolError.api("SecKeychainItemDelete", error)
        }
        invocation.console.error("password has been deleted.\n")
        return 0
    }
}
