import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainCrypto

/// A context passed as `kSecUseAuthenticationContext`: the keychain reuses what the context
/// established (its grant, its application password), and when an item needs more, the context
/// asks the user (with its `localizedReason`, `localizedCancelTitle`, `interactionNotAllowed`)
/// and keeps the keychain's new grant, so a later call with the same context does not ask again.
extension LAContext: KeychainAuthenticating {
    package func grant(forKeychainAt path: String) -> Data? {
        state.withLock { current in current.grant?.path == path ? current.grant?.identifier : nil }
    }

    package func satisfy(_ constraints: AccessControlPolicy.Flags, keychain: any KeychainHandle, reason: String?) throws {
        let cancellation = PromptCancellation()
        let key = ObjectIdentifier(cancellation)
        let snapshot = state.withLock { current -> State? in
            guard !current.invalidated else { return nil }
            current.pending[key] = cancellation
            return current
        }
        guard let snapshot else { throw KeychainError(.authFailed, "the authentication context was invalidated") }
        defer { _ = state.withLock { $0.pending.removeValue(forKey: key) } }
        var grant = snapshot.grant?.path == keychain.path ? snapshot.grant?.identifier : nil
        let shown = snapshot.localizedReason.isEmpty ? (reason ?? "access an item protected by its access control") : snapshot.localizedReason
        let settings = KeychainPrompt.Settings(
            environment: environment, callerName: callerName, reason: shown, cancelTitle: snapshot.localizedCancelTitle,
            interactionNotAllowed: snapshot.interactionNotAllowed)
        var password = snapshot.applicationPassword
        try KeychainPrompt.satisfy(
            constraints, keychain: keychain, grant: &grant, applicationPassword: &password, settings: settings,
            cancellation: cancellation)
        if cancellation.isCancelled { throw KeychainError(.userCanceled, "the context was invalidated during the prompt") }
        state.withLock { current in
            if let grant { current.grant = (keychain.path, grant) }
            // An application password entered at the prompt is kept, as `setCredential` keeps one.
            if current.applicationPassword == nil { current.applicationPassword = password }
        }
    }
}
