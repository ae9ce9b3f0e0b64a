import Foundation
import KeychainCore
import Security

/// `find-generic-password` and `find-internet-password`.
///
/// Prints the first matching item's attributes (stdout); with `-g` also `password: "..."` on
/// standard error; with `-w` only the password and a newline (lowercase hex if any byte is not
/// printable). Nothing matching is errSecItemNotFound, exit status 44, with
/// `security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.`
struct FindPasswordCommand: CommandDefinition {
    /// Which class of password the command finds.
    let kind: PasswordKind

    var name: String { kind == .generic ? "find-generic-password" : "find-internet-password" }
    var summary: String { kind == .generic ? "Find a generic password item." : "Find an internet password item." }
    var options: OptionParser { PasswordItemOptions.specification(kind, .find) }
    var needsLegacyAlgorithmNames: Bool { false }

    var usage: String {
        switch kind {
        case .generic:
            return """
                [-a account] [-s service] [options...] [-g] [keychain...]
                    -a  Match the account
                    -c  Match the creator (four-character code)
                    -C  Match the type (four-character code)
                    -D  Match the kind
                    -G  Match the generic attribute
                    -j  Match the comment
                    -l  Match the label
                    -s  Match the service
                    -g  Also print the password (on standard error)
                    -w  Print only the password
                If no keychain is given, the default keychain is searched.
                """
        case .internet:
            return """
                [-a account] [-s server] [options...] [-g] [keychain...]
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
                    -g  Also print the password (on standard error)
                    -w  Print only the password
                If no keychain is given, the default keychain is searched.
                """
        }
    }

    func run(_ invocation: Invocation) throws -> Int32 {
        let options = try PasswordItemOptions.parse(invocation.scan, kind: kind, operation: .find)
        let keychains = try KeychainSession.searchList(options.keychains)
        let wantsPassword = options.showPassword || options.passwordOnly
        var request = options.searchRequest(kind)
        // `-w` prints the password alone, so nothing else is asked for (a lookup by primary key
        // then needs no attribute decoded).
        request.returns = options.passwordOnly ? [.data] : wantsPassword ? [.attributes, .data] : [.attributes]
        let (item, keychain) = try PasswordSearch.first(request, in: keychains, for: invocation)

        var password = [UInt8](item.data ?? Data())
        defer { SecretWiping.wipe(&password) }
        if options.passwordOnly {
            invocation.console.writeOutput(ByteFormat.passwordOnly(password) + [UInt8(ascii: "\n")])
            return 0
        }
        invocation.console.writeOutput(ItemPrinter.render(item, keychainPath: keychain.path))
        if options.showPassword {
            invocation.console.error("password: " + ByteFormat.dumpValue(password) + "\n")
        }
        return 0
    }
}

/// The search the find and delete commands share: the first item matching in the first keychain
/// of the list that has one.
enum PasswordSearch {
    /// The API name macOS reports search failures under.
    static let api = "SecKeychainSearchCopyNext"

    /// The first match and its keychain. A keychain whose locked items stand in the way is
    /// unlocked with a password prompt (`KeychainSession.unlockingIfNeeded`).
    ///
    /// - Throws: `ToolError.status(errSecItemNotFound, SecKeychainSearchCopyNext)` when no
    ///   keychain has a match; other search failures under the same API name.
    ///
    /// `damaged`, when given, hears of the keychain whose match is damaged (errSecDecode) before
    /// the failure is thrown.
    static func first(
        _ request: ItemRequest, in keychains: [any KeychainHandle], for invocation: Invocation,
        damaged: ((any KeychainHandle) throws -> Void)? = nil
    ) throws -> (ItemResult, any KeychainHandle) {
        for keychain in keychains {
            do {
                let items = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                    // An item whose access control guards its secret asks through pinentry.
                    try AuthenticatedCall.run(request, context: nil, reason: "security: read a keychain item", keychain: keychain) {
                        try keychain.search($0)
                    }
                }
                if let item = items.first { return (item, keychain) }
            } catch let error as KeychainError where error.code == .itemNotFound {
                continue
            } catch let error as KeychainError where error.code == .decode {
                try damaged?(keychain)
                throw ToolError.api(api, error)
            } catch {
                throw ToolError.api(api, error)
            }
        }
        throw ToolError.status(errSecItemNotFound, api: api)
    }
}
