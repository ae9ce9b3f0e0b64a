import Foundation
import KeychainCore
import KeychainCrypto

/// Something that authenticates the user for the keychain and remembers what it established, so
/// a later keychain call can reuse it: `LAContext` (passed as `kSecUseAuthenticationContext`), or
/// a context made for one call.
package protocol KeychainAuthenticating: AnyObject, Sendable {
    /// The grant this context holds for the keychain at `path` (issued by that keychain when it
    /// verified the user), or nil.
    func grant(forKeychainAt path: String) -> Data?
    /// The application password given to the context, or nil.
    var applicationPassword: SecureBytes? { get }
    /// Asks the user for what an item's access control `constraints` need, has `keychain` verify
    /// it, and keeps the grant the keychain issues.
    ///
    /// - Throws: `.userCanceled`, `.authFailed` (a wrong passcode, biometry that did not match or
    ///   is unavailable), `.interactionNotAllowed` (the context may not ask, or nowhere to ask).
    func satisfy(_ constraints: AccessControlPolicy.Flags, keychain: any KeychainHandle, reason: String?) throws
}
