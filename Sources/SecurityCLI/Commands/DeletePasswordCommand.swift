import KeychainCore

/// `delete-generic-password` and `delete-internet-password`.
///
/// Deletes the first matching item: prints its attributes on standard output, then
/// `password has been deleted.` on standard error. With no match criterion at all the command
/// refuses to run (usage, exit status 2); with no match it is errSecItemNotFound (44).
struct DeletePasswordCommand: CommandDefinition {
    /// Which class of password the command deletes.
    let kind: PasswordKind

    var name: String { kind == .generic ? "delete-generic-password" : "delete-internet-password" }
    var summary: String { kind == .generic ? "Delete a generic password item." : "Delete an internet password item." }
    var options: OptionParser { PasswordItemOptions.specification(kind, .delete) }
    var needsLegacyAlgorithmNames: Bool { false }

    var usage: String {
        switch kind {
        case .generic:
            return """
                [-a account] [-s service] [options...] [keychain...]
                    -a  Match the account
                    -c  Match the creator (four-character code)
                    -C  Match the type (four-character code)
                    -D  Match the kind
                    -G  Match the generic attribute
                    -j  Match the comment
                    -l  Match the label
                    -s  Match the service
                If no keychain is given, the default keychain is searched.
                """
        case .internet:
            return """
                [-a account] [-s server] [options...] [keychain...]
                    -a  Match the account
                    -c  Match the creator (four-character code)
                    -C  Match the type (four-character code)
                    -d  Match the security domain
                    -D  Match the kind
                    -j  Match the comment
                    -l  Match the label
                    -p  Match the path
                    -P  Match the port number
                    -r  Match the protocol (four-character code)
                    -s  Match the server
                    -t  Match the authentication type (four-character code)
                If no keychain is given, the default keychain is searched.
                """
        }
    }

    func run(_ invocation: Invocation) throws -> Int32 {
        let options = try PasswordItemOptions.parse(invocation.scan, kind: kind, operation: .delete)
        let keychains = try KeychainSession.searchList(options.keychains)
        var request = options.searchRequest(kind)
        request.returns = [.attributes]
        // A damaged match cannot be printed, but the query that names it still deletes it
        // (SecItemDelete removes a damaged item named by its key): the damage is reported, and
        // ended.
        var removedDamage = false
        let (item, keychain): (ItemResult, any KeychainHandle)
        do {
            (item, keychain) = try PasswordSearch.first(request, in: keychains, for: invocation) { damaged in
                var removal = request
                removal.returns = []
                removedDamage = (try? KeychainSession.unlockingIfNeeded(damaged, for: invocation) {
                    try damaged.delete(removal)
                }) != nil
            }
        } catch let failure as ToolError where removedDamage {
            throw ToolError.failed(
                result: failure.result, message: (failure.message ?? "") + "security: the damaged item was deleted\n")
        }

        invocation.console.writeOutput(ItemPrinter.render(item, keychainPath: keychain.path))
        do {
            _ = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try keychain.delete(.exactly(item))
            }
        } catch {
            throw ToolError.api("SecKeychainItemDelete", error)
        }
        invocation.console.error("password has been deleted.\n")
        return 0
    }
}
