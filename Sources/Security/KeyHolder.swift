import Foundation
import KeychainAuthentication
import KeychainCore

/// Where a `SecKey` whose private half the keychain holds is used: the keychain it was found in
/// or stored to, and the context and UI rule given with it (`kSecUseAuthenticationContext`,
/// `kSecUseOperationPrompt`, `kSecUseAuthenticationUI` in the key's parameters or in the query
/// that found it), as Apple binds a key's authentication context when the key is made or found.
struct KeyHolder: Sendable {
    /// The keychain; nil: the process's keychain when the key is used.
    let keychain: (any KeychainHandle)?
    /// The context that authenticates each use (nil: each use asks).
    let context: (any KeychainAuthenticating)?
    /// The reason prompts show.
    let reason: String?
    /// Whether the user may be asked.
    let ui: AuthenticationUI

    /// A key found or stored through `keychain` by a request of `entries`.
    init(keychain: (any KeychainHandle)?, entries: RequestEntries) {
        self.keychain = keychain
        context = AuthenticatedCall.authenticator(in: entries)
        reason = AuthenticatedCall.reason(in: entries)
        switch entries[kSecUseAuthenticationUI as String] {
        case .string(let value)? where value == kSecUseAuthenticationUIFail as String || value == kSecUseAuthenticationUISkip as String:
            ui = .fail
        default: ui = .allow
        }
    }

    /// The holder for the keys `request`'s results return: nil when it returns no references
    /// (only a `SecKey` a result returns needs one).
    static func forResults(of request: ItemRequest, keychain: any KeychainHandle, entries: RequestEntries) -> KeyHolder? {
        request.returns.contains(.reference) ? KeyHolder(keychain: keychain, entries: entries) : nil
    }

    /// A key with no context: the process's keychain, each use asking.
    static let process = KeyHolder(keychain: nil, entries: RequestEntries())

    /// Runs `operation` with `key`'s private half in the keychain, authenticating as the
    /// keychain asks (through the context, else once per call).
    ///
    /// - Returns: the operation's output (a secret for decryption, key exchange and export: the
    ///   caller zeroes it).
    func run(_ operation: KeyUse.Operation, with key: AsymmetricKey) throws -> Data {
        guard let item = key.keychainItemReference else {
            throw KeychainError(.internal, "the key's private half is not held by the keychain")
        }
        let keychain = try self.keychain ?? ProcessKeychain.resolve()
        let use = KeyUse(item: item, operation: operation, authenticationUI: ui)
        return try AuthenticatedCall.run(
            authentication: use.authentication, context: context, reason: reason ?? Self.defaultReason(for: operation),
            keychain: keychain
        ) { authentication in
            var use = use
            use.authentication = authentication
            return try keychain.useKey(use)
        }
    }

    /// What a prompt says the key is used for when the caller gives no reason.
    private static func defaultReason(for operation: KeyUse.Operation) -> String {
        switch operation {
        case .sign: return "sign with a key protected by its access control"
        case .decrypt: return "decrypt with a key protected by its access control"
        case .keyExchange: return "use a key protected by its access control for a key exchange"
        case .export: return "export a key protected by its access control"
        }
    }
}
