import Foundation
import KeychainCore

/// `add-generic-password` and `add-internet-password`.
///
/// Adds an item to the default keychain or the one named. The password (`-w`, `-p`, `-X`) is
/// stored as the bytes given, UTF-8 or not; every other value is an attribute and must be UTF-8.
/// Without `-U` an existing item with the same primary key fails with errSecDuplicateItem (exit
/// status 45); with `-U` the first item matching macOS's search (account and service; for
/// internet passwords the given attributes, defaulted label and authentication type included)
/// is updated instead, and an item is added only if none matches.
struct AddPasswordCommand: CommandDefinition {
    /// Which class of password the command adds.
    let kind: PasswordKind

    var name: String { kind == .generic ? "add-generic-password" : "add-internet-password" }
    var summary: String { kind == .generic ? "Add a generic password item." : "Add an internet password item." }
    var options: OptionParser { PasswordItemOptions.specification(kind, .add) }
    var needsLegacyAlgorithmNames: Bool { false }

    var usage: String {
        switch kind {
        case .generic:
            return """
                [-a account] [-s service] [-w password] [options...] [-A|-T appPath] [keychain]
                    -a  Account name (required)
                    -c  Creator (optional four-character code)
                    -C  Type (optional four-character code)
                    -D  Kind
                    -e  Accessibility: ak, ck, dk, aku, cku, dku, akpu (or WhenUnlocked,
                        AfterFirstUnlockThisDeviceOnly, …); WhenUnlocked when omitted
                    -G  Generic attribute (optional)
                    -j  Comment (optional)
                    -l  Label (the service name when omitted)
                    -s  Service name (required)
                    -p  Password (older spelling of -w)
                    -w  Password; as the last option with no value, ask for it on the terminal
                    -X  Password as hexadecimal digits
                    -A  Accepted and ignored (this keychain has no access control lists)
                    -T  Accepted and ignored (this keychain has no access control lists)
                    -U  Update the item if it exists (otherwise it must not exist)
                If no keychain is given, the password is added to the default keychain.
                """
        case .internet:
            return """
                [-a account] [-s server] [-w password] [options...] [-A|-T appPath] [keychain]
                    -a  Account name (required)
                    -c  Creator (optional four-character code)
                    -C  Type (optional four-character code)
                    -d  Security domain (optional)
                    -D  Kind
                    -e  Accessibility: ak, ck, dk, aku, cku, dku, akpu (or WhenUnlocked,
                        AfterFirstUnlockThisDeviceOnly, …); WhenUnlocked when omitted
                    -j  Comment (optional)
                    -l  Label (the server name when omitted)
                    -p  Path (optional)
                    -P  Port number (optional)
                    -r  Protocol (optional four-character code, such as "http" or "ftp ")
                    -s  Server name (required)
                    -t  Authentication type (four-character code, "dflt" when omitted)
                    -w  Password; as the last option with no value, ask for it on the terminal
                    -X  Password as hexadecimal digits
                    -A  Accepted and ignored (this keychain has no access control lists)
                    -T  Accepted and ignored (this keychain has no access control lists)
                    -U  Update the item if it exists (otherwise it must not exist)
                If no keychain is given, the password is added to the default keychain.
                """
        }
    }

    func run(_ invocation: Invocation) throws -> Int32 {
        let options = try PasswordItemOptions.parse(invocation.scan, kind: kind, operation: .add)
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
        case .prompt: secret = try Self.promptTwice(invocation.console)
        }
        defer { SecretWiping.wipe(&secret) }

        if options.update, let existing = try Self.firstMatch(options, kind: kind, in: keychain, context: context, for: invocation) {
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
