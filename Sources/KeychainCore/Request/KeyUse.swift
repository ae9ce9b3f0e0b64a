import Foundation

/// One operation with a private key the keychain holds (`AsymmetricKey.isHeldByKeychain`): the
/// key's item, what to do, and what the caller brings to satisfy the key's access control.
public struct KeyUse: Sendable {
    /// What to do with the private key.
    public enum Operation: Sendable {
        /// `SecKeyCreateSignature`: the signature of `data` (a message or digest, as the
        /// algorithm says).
        case sign(algorithm: String, data: Data)
        /// `SecKeyCreateDecryptedData`: the plaintext of `data`.
        case decrypt(algorithm: String, data: Data)
        /// `SecKeyCopyKeyExchangeResult`: the shared secret (or KDF output) with `peer`, a public key.
        case keyExchange(algorithm: String, peer: AsymmetricKey, parameters: KeyOperationParameters)
        /// `SecKeyCopyExternalRepresentation` of the private key (also its item's data).
        case export

        /// Whether this is a use of the key (sign, decrypt, derive), which a constraint guards
        /// only with `.privateKeyUsage`; export is guarded by every constraint.
        public var isUse: Bool {
            if case .export = self { return false }
            return true
        }
    }

    /// The persistent reference of the key's item.
    public var item: Data
    /// What to do.
    public var operation: Operation
    /// The grant (and application password) the caller brings.
    public var authentication: ItemAuthentication
    /// Whether the user may be asked (`.fail`: `errSecInteractionNotAllowed` instead).
    public var authenticationUI: AuthenticationUI

    /// `operation` with the key of the item `item` names, bringing nothing yet.
    public init(item: Data, operation: Operation, authentication: ItemAuthentication = ItemAuthentication(), authenticationUI: AuthenticationUI = .allow) {
        self.item = item
        self.operation = operation
        self.authentication = authentication
        self.authenticationUI = authenticationUI
    }
}
