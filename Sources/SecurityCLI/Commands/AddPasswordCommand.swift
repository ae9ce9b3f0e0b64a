import Foundation
import KeychainCore
import Security

/// `add-generic-password` and `add-internet-password`.
///
/// Adds an item to the default keychain or the one named. The password (`-w`, `-p`, `-X`) is
/// stored as the bytes given, UTF-8 or not; every other value is an attribute and must be UTF-8.
/// Without `-U` an existing item with the same primary key fails with errSecDuplicateItem (exit
/// status 45). With `-U` the add is tried first and, when an item with the same primary key
/// exists, that item is updated instead (its password and the attributes given), so concurrent
/// upserts of one item all succeed: an update that finds the item gone (deleted meanwhile) adds
/// again, a bounded number of times.
struct AddPasswordCommand: CommandDefinition {
    /// Which class of password the command adds.
    let kind: PasswordKind

    /// How many times `-U` tries the add again after the item it was to update disappeared.
    static let upsertAttempts = 8

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
                    -A  Access control: flag names joined by | (any one) or , (all):
                        userPresence, biometryAny, biometryCurrentSet, devicePasscode, watch,
                        applicationPassword, privateKeyUsage (a bare -A is accepted and ignored)
                    -T  Accepted and ignored (this keychain has no application lists)
                    -S  Synchronizable: sync carries the item to the user's other keychains
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
                    -A  Access control: flag names joined by | (any one) or , (all):
                        userPresence, biometryAny, biometryCurrentSet, devicePasscode, watch,
                        applicationPassword, privateKeyUsage (a bare -A is accepted and ignored)
                    -T  Accepted and ignored (this keychain has no application lists)
                    -S  Synchronizable: sync carries the item to the user's other keychains
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

        var secret: Data?
        switch options.password {
        case .none: secret = nil
        case .bytes(let bytes): secret = Data(bytes)
        case .prompt: secret = try Self.promptTwice(invocation.console)
        }
        defer { SecretWiping.wipe(&secret) }

        var request = options.addRequest(kind)
        request.secret = secret ?? Data()
        defer { request.secret = nil }
        for _ in 0..<(options.update ? Self.upsertAttempts : 1) {
            do {
                _ = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                    // An application password (`-A applicationPassword`) is asked through pinentry.
                    try AuthenticatedCall.run(request, context: nil, reason: name, keychain: keychain) { try keychain.add($0) }
                }
                return 0
            } catch let error as KeychainError where error.code == .duplicateItem && options.update {
                if try updateExisting(options, secret: secret, in: keychain, for: invocation) {
                    return 0
                }
            } catch {
                throw ToolError.api(addAPI, error)
            }
        }
        throw ToolError.status(errSecDuplicateItem, api: addAPI)
    }

    /// `-U` after a duplicate: updates the item the add collided with.
    ///
    /// - Returns: false when that item no longer exists (another process deleted it since).
    private func updateExisting(
        _ options: PasswordItemOptions, secret: Data?, in keychain: any KeychainHandle,
        for invocation: Invocation
    ) throws -> Bool {
        let api = "SecKeychainItemModifyContent"
        var changes = options.changes(kind)
        changes.secret = secret
        defer { changes.secret = nil }
        do {
            let existing = options.addedItemKey(kind, accessGroup: try keychain.defaultAccessGroup())
            try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try AuthenticatedCall.run(existing, context: nil, reason: name, keychain: keychain) {
                    try keychain.update($0, changes: changes)
                }
            }
            return true
        } catch let error as KeychainError where error.code == .itemNotFound {
            return false
        } catch {
            throw ToolError.api(api, error)
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
