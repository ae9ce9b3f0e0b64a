import Foundation
import KeychainCore

/// `add-generic-password` and `add-internet-password`.
///
/// Adds an item to the default keychain or the one named. Without `-U` an existing item with the
/// same primary key fails with errSecDuplicateItem (exit status 45); with `-U` the first item
/// matching macOS's search (account and service; for internet passwords the given attributes,
/// defaulted label and authentication type included) is updated instead, and an item is added
/// only if none matches.
enum AddPasswordCommand {
    /// Runs the command.
    static func run(_ invocation: Invocation, kind: PasswordKind) throws -> Int32 {
        let options = try PasswordItemOptions.parse(invocation.arguments, kind: kind, operation: .add)
        let keychainName = options.keychains.first
        let keychain = try keychainName.map(KeychainSession.open) ?? KeychainSession.openDefault()
        let addAPI = kind == .generic
            ? "SecKeychainItemCreateFromContent (\(keychainName ?? "<default>"))"
            : "SecKeychainAddInternetPassword \(keychainName ?? "<NULL>")"
        let context = try KeychainSession.context(api: addAPI)

        var secret: Data?
        switch options.password {
        case .none: secret = nil
        case .bytes(let bytes): secret = Data(bytes)
        case .prompt: secret = try promptTwice(invocation.console)
        }
        defer { SecretWiping.wipe(&secret) }

        if options.update, let existing = try firstMatch(options, kind: kind, in: keychain, context: context, for: invocation) {
            var changes = options.changes(kind)
            changes.secret = secret
            defer { changes.secret = nil }
            do {
                try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                    try keychain.update(.exactly(existing), changes: changes, context: context)
                }
            } catch {
                throw ToolError.api("SecKeychainItemModifyContent", error)
            }
            return 0
        }

        var request = options.addRequest(kind)
        request.secret = secret ?? Data()
        defer { request.secret = nil }
        do {
            _ = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try keychain.add(request, context: context)
            }
        } catch {
            throw ToolError.api(addAPI, error)
        }
        return 0
    }

    /// The item `-U` updates, if any.
    private static func firstMatch(
        _ options: PasswordItemOptions, kind: PasswordKind, in keychain: Keychain, context: AccessContext,
        for invocation: Invocation
    ) throws -> ItemResult? {
        var request = options.updateSearchOptions(kind).searchRequest(kind)
        request.returns = [.attributes]
        do {
            return try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try keychain.search(request, context: context)
            }.first
        } catch let error as KeychainError where error.code == .itemNotFound {
            return nil
        } catch {
            throw ToolError.api("SecKeychainSearchCopyNext", error)
        }
    }

    /// Asks for the password twice, as macOS does for a trailing `-w`: up to three attempts,
    /// `passwords don't match` after each mismatch.
    ///
    /// - Throws: `ToolError.failed(1)` after three mismatches or at the end of input.
    static func promptTwice(_ console: any Console) throws -> Data {
        for _ in 0..<3 {
            guard var first = console.readSecret(prompt: "password data for new item: ") else {
                throw ToolError.failed(result: 1, message: "security: no password was entered\n")
            }
            defer { SecretWiping.wipe(&first) }
            guard var second = console.readSecret(prompt: "retype password for new item: ") else {
                throw ToolError.failed(result: 1, message: "security: no password was entered\n")
            }
            defer { SecretWiping.wipe(&second) }
            if SecretWiping.equal(first, second) {
                return Data(first)
            }
            console.error("passwords don't match\n")
        }
        throw ToolError.failed(result: 1, message: nil)
    }
}
