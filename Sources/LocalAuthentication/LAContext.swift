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
/// (same attempt counter and delays). Biometry is a fingerprint reader through fprintd on the
/// system bus (`FprintdVerifier`): `biometryType` is `.touchID` when the machine has a reader
/// with at least one enrolled finger of the user, else `.none` (a reader without enrolled
/// fingers counts as none, so apps take the passcode path). The keychain (in `keychaind`, the
/// daemon) verifies each finger itself and records a match in a grant the context holds, as it
/// does for the passcode: whatever the context established, a keychain call made with it reuses
/// without asking again, for as long as the keychain keeps the factor (its grants' lifetime from
/// the verification) and until `invalidate()`. Companion devices are not
/// available: policies and constraints needing them fail with `LAError.companionNotAvailable`.
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
        /// Whether a finger matched on this context.
        var biometryAuthenticated = false
        /// The enrolled set seen by the last successful biometric `canEvaluatePolicy` or
        /// evaluation (what `evaluatedPolicyDomainState` hashes).
        var evaluatedFingerprints: EnrolledFingerprints?
    }

    let state = Mutex(State())

    /// Where prompts appear (this process's environment and terminal unless a test sets it).
    package let environment: PinentryEnvironment
    /// What the passcode is checked against (the default keychain unless a test sets it).
    package let passcodeAuthority: PasscodeAuthority
    /// The program name prompts show.
    package let callerName: String
    /// The fingerprint service (fprintd on the system bus unless a test sets it), guarded by
    /// `biometryLockout`: what the context asks for the reader's state and the enrolled set.
    /// Fingers themselves are verified by the keychain with its own reader (the same service),
    /// which issues the grant a match earns.
    package let fingerprints: LockoutGuardedVerifier
    /// The count of failed matches in a row (the user's unless a test sets it).
    package let biometryLockout: BiometryLockout
    /// The key of the domain state (the user's unless a test sets it), made when first needed.
    let domainStateKey: @Sendable () throws -> BiometryDomainState
    /// The program the domain state is computed for.
    package let programIdentity: String

    /// A new context with nothing evaluated.
    public convenience init() {
        self.init(
            environment: .current,
            passcodeAuthority: PasscodeAuthority {
                // In-process, the keychain verifies fingers with the machine's reader (through
                // keychaind, the daemon with its own), whether or not the program used `SecItem` first.
                FingerprintBiometrics.useMachineReaderForKeychains()
                return try KeychainConnector.openDefault(context: try Entitlements.currentContext())
            },
            callerName: CallingProgram.current)
    }

    /// A context prompting in `environment`, checking passcodes with `passcodeAuthority`,
    /// fingerprints with `fingerprints`, counting failed matches in `biometryLockout` and hashing
    /// the domain state under `domainStateKey` for `programIdentity`.
    package init(
        environment: PinentryEnvironment, passcodeAuthority: PasscodeAuthority, callerName: String,
        fingerprints: any FingerprintVerifying = FprintdVerifier(), biometryLockout: BiometryLockout = .user,
        domainStateKey: @escaping @Sendable () throws -> BiometryDomainState = { try BiometryDomainState.user() },
        programIdentity: String = CallingProgram.identity
    ) {
        self.environment = environment
        self.passcodeAuthority = passcodeAuthority
        self.callerName = callerName
        self.fingerprints = LockoutGuardedVerifier(fingerprints, lockout: biometryLockout)
        self.biometryLockout = biometryLockout
        self.domainStateKey = domainStateKey
        self.programIdentity = programIdentity
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

    /// The fallback button's label in a biometric prompt; an empty string hides it. A fingerprint
    /// reader has no buttons: not touching it within the verifier's time is the fallback choice
    /// (`LAError.userFallback` for a biometric-only policy), unless this is empty, in which case
    /// it is `LAError.systemCancel`.
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
    /// larger values are clamped to it, negative ones to 0. The machine's own unlock does not
    /// go through the keychain here, so it never spares a prompt.
    public var touchIDAuthenticationAllowableReuseDuration: Double {
        get { state.withLock { $0.reuseDuration } }
        set {
            let clamped = newValue.isNaN ? 0 : min(max(newValue, 0), LATouchIDAuthenticationMaximumAllowableReuseDuration)
            state.withLock { $0.reuseDuration = clamped }
        }
    }

    /// The biometry available, asked of the fingerprint service each time: `.touchID` when the
    /// machine has a fingerprint reader with at least one of the user's fingers enrolled;
    /// `.none` without a reader, without fprintd, or without an enrolled finger.
    public var biometryType: LABiometryType {
        if case .enrolled? = try? fingerprints.currentReaderState() { return .touchID }
        return .none
    }

    /// A value that changes when the enrolled fingers change (a finger added or removed), the
    /// same for every call of one program while they do not, and different for another program:
    /// a keyed hash (`BiometryDomainState`) of the enrolled set this context saw at its last
    /// successful biometric `canEvaluatePolicy` or evaluation. Nil before either.
    public var evaluatedPolicyDomainState: Data? {
        guard let enrolled = state.withLock({ $0.evaluatedFingerprints }) else { return nil }
        return try? domainStateKey().hash(of: enrolled, program: programIdentity)
    }

    /// The state of the authentication domains: the biometry (its type now, and
    /// `evaluatedPolicyDomainState` as its hash); no companion here.
    public var domainState: LADomainState {
        LADomainState(
            biometry: LADomainStateBiometry(biometryType: biometryType, stateHash: evaluatedPolicyDomainState),
            companion: LADomainStateCompanion())
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

    /// Whether a finger matched on this context.
    package var isBiometryAuthenticated: Bool { state.withLock { $0.biometryAuthenticated } }

    /// The enrolled set this context last saw with a successful biometric check (for items
    /// bound to the current set); nil before one.
    package var evaluatedFingerprints: EnrolledFingerprints? { state.withLock { $0.evaluatedFingerprints } }

    /// Ends pending evaluations (`LAError.appCancel`, their prompts withdrawn) and every later
    /// one (`LAError.invalidContext`); forgets what the context established and its credential.
    /// Calling it again does nothing more.
    public func invalidate() {
        let (pending, grant) = state.withLock { current in
            let grant = current.grant
            current.invalidated = true
            current.passcodeAuthenticated = false
            current.biometryAuthenticated = false
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
