import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainCrypto
import KeychainService
import Synchronization

/// An authentication context (`LAContext`): evaluates policies and access controls by asking
/// the user, and remembers what it established so the keychain can reuse it
/// (`kSecUseAuthenticationContext`).
///
/// Authenticators on Linux: the device passcode is the keychain's passcode, asked through a
/// pinentry program (`PinentryEnvironment` says which) and checked by the keychain's own unlock
/// (same attempt counter and delays). Biometry and companion devices are not available yet:
/// policies and constraints needing them fail with `LAError.biometryNotAvailable` or
/// `LAError.companionNotAvailable`, and `biometryType` is `.none`.
///
/// Evaluations run on a private queue and their replies are called there. `invalidate()` ends
/// pending evaluations with `LAError.appCancel` (their prompts are withdrawn) and refuses later
/// ones with `LAError.invalidContext`.
public final class LAContext: @unchecked Sendable {
    struct State {
        var localizedReason = ""
        var localizedCancelTitle: String?
        var localizedFallbackTitle: String?
        var interactionNotAllowed = false
        var reuseDuration: Double = 0
        var invalidated = false
        var pending: [ObjectIdentifier: PromptCancellation] = [:]
        var applicationPassword: SecureBytes?
        /// Whether the device passcode was entered correctly on this context.
        var passcodeAuthenticated = false
        /// The grant the keychain issued when it verified the user on this context, and the
        /// keychain's path.
        var grant: (path: String, identifier: Data)?
    }

    let state = Mutex(State())

    /// Where prompts appear (this process's environment and terminal unless a test sets it).
    package let environment: PinentryEnvironment
    /// What the passcode is checked against (the default keychain unless a test sets it).
    package let passcodeAuthority: PasscodeAuthority
    /// The program name prompts show.
    package let callerName: String

    /// A new context with nothing evaluated.
    public convenience init() {
        self.init(
            environment: .current,
            passcodeAuthority: PasscodeAuthority { try KeychainConnector.openDefault(context: try Entitlements.currentContext()) },
            callerName: CallingProgram.current)
    }

    /// A context prompting in `environment` and checking passcodes with `passcodeAuthority`.
    package init(environment: PinentryEnvironment, passcodeAuthority: PasscodeAuthority, callerName: String) {
        self.environment = environment
        self.passcodeAuthority = passcodeAuthority
        self.callerName = callerName
    }

    /// The reason shown when the keychain authenticates with this context (the successor of
    /// `kSecUseOperationPrompt`).
    public var localizedReason: String {
        get { state.withLock { $0.localizedReason } }
        set { state.withLock { $0.localizedReason = newValue } }
    }

    /// The cancel button's label; nil shows "Cancel".
    public var localizedCancelTitle: String? {
        get { state.withLock { $0.localizedCancelTitle } }
        set { state.withLock { $0.localizedCancelTitle = newValue } }
    }

    /// The fallback button's label in a biometric prompt; an empty string hides it. Kept for the
    /// biometric prompt, which does not exist here yet: passcode prompts have no fallback button.
    public var localizedFallbackTitle: String? {
        get { state.withLock { $0.localizedFallbackTitle } }
        set { state.withLock { $0.localizedFallbackTitle = newValue } }
    }

    /// When true, an evaluation that would ask the user fails with `LAError.notInteractive`
    /// instead, and no prompt is shown.
    public var interactionNotAllowed: Bool {
        get { state.withLock { $0.interactionNotAllowed } }
        set { state.withLock { $0.interactionNotAllowed = newValue } }
    }

    /// How long after a biometric device unlock a biometric evaluation succeeds without asking,
    /// in seconds: 0 (the default) to `LATouchIDAuthenticationMaximumAllowableReuseDuration`;
    /// larger values are clamped to it, negative ones to 0. There is no biometric unlock here
    /// yet, so it never spares a prompt.
    public var touchIDAuthenticationAllowableReuseDuration: Double {
        get { state.withLock { $0.reuseDuration } }
        set {
            let clamped = newValue.isNaN ? 0 : min(max(newValue, 0), LATouchIDAuthenticationMaximumAllowableReuseDuration)
            state.withLock { $0.reuseDuration = clamped }
        }
    }

    /// The biometry available: `.none`, as no biometric reader is supported yet.
    public var biometryType: LABiometryType { .none }

    /// A value that changes when the enrolled biometry changes; nil without biometry (always, here).
    public var evaluatedPolicyDomainState: Data? { domainState.biometry.stateHash }

    /// The state of the authentication domains: no biometry and no companion here.
    public var domainState: LADomainState {
        LADomainState(biometry: LADomainStateBiometry(biometryType: biometryType, stateHash: nil), companion: LADomainStateCompanion())
    }

    /// Gives the context a credential: the application password of items protected with
    /// `.applicationPassword` (nil removes it).
    ///
    /// - Returns: true when stored; false for an invalidated context or an unsupported type
    ///   (`.smartCardPIN`).
    @discardableResult
    public func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        guard type == .applicationPassword else { return false }
        return state.withLock { current in
            guard !current.invalidated else { return false }
            current.applicationPassword = credential.map { SecureBytes(copying: $0) }
            return true
        }
    }

    /// Whether a credential of `type` is set.
    public func isCredentialSet(_ type: LACredentialType) -> Bool {
        guard type == .applicationPassword else { return false }
        return state.withLock { $0.applicationPassword != nil }
    }

    /// The application password set with `setCredential`, for the keychain.
    package var applicationPassword: SecureBytes? { state.withLock { $0.applicationPassword } }

    /// Whether the device passcode was entered correctly on this context.
    package var isPasscodeAuthenticated: Bool { state.withLock { $0.passcodeAuthenticated } }

    /// Ends pending evaluations (`LAError.appCancel`, their prompts withdrawn) and every later
    /// one (`LAError.invalidContext`); forgets what the context established and its credential.
    /// Calling it again does nothing more.
    public func invalidate() {
        let (pending, grant) = state.withLock { current in
            let grant = current.grant
            current.invalidated = true
            current.passcodeAuthenticated = false
            current.applicationPassword = nil
            current.grant = nil
            defer { current.pending = [:] }
            return (Array(current.pending.values), grant)
        }
        for cancellation in pending { cancellation.cancel() }
        // The keychain forgets the grant too, so it can never be presented again.
        if let grant, let keychain = try? passcodeAuthority.keychain(), keychain.path == grant.path {
            try? keychain.revokeAuthentication(grant: grant.identifier)
        }
    }
}
