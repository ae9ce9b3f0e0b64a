import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainCrypto
import Synchronization

extension LAContext {
    /// Whether `policy` can be evaluated, without asking the user.
    ///
    /// - `.deviceOwnerAuthentication`: true when the keychain has a passcode; otherwise false
    ///   with `LAError.passcodeNotSet` (biometry needs the passcode to fall back on).
    /// - `.deviceOwnerAuthenticationWithBiometrics`, `…OrWatch`: true when a fingerprint reader
    ///   has an enrolled finger of the user, the keychain has a passcode and biometry is not
    ///   locked out (the context then has an `evaluatedPolicyDomainState`); otherwise false with
    ///   `LAError.biometryNotAvailable` (no fprintd or no reader), `biometryNotEnrolled`,
    ///   `passcodeNotSet` or `biometryLockout`.
    /// - `.deviceOwnerAuthenticationWithWatch`, `…WithWristDetection`: false with
    ///   `LAError.companionNotAvailable`.
    /// - An invalidated context: false with `LAError.invalidContext`.
    @discardableResult
    public func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        if let failure = unavailability(of: policy) {
            error?.pointee = failure._nsError
            return false
        }
        error?.pointee = nil
        return true
    }

    /// Evaluates `policy`, asking the user; `reply` is called on a private queue with true, or
    /// with false and an `LAError`.
    ///
    /// `.deviceOwnerAuthenticationWithBiometrics` asks for a finger through fprintd: a wrong one
    /// may be tried again (three in all, then `.authenticationFailed`); the fifth wrong finger in
    /// a row, over any evaluations, locks biometry out (`.biometryLockout`) until the passcode is
    /// entered; no finger in time is `.userFallback`.
    ///
    /// `.deviceOwnerAuthentication` asks for a finger first when biometry can be used, and for
    /// the keychain passcode through pinentry after a lockout, three wrong fingers, the fallback
    /// or without biometry, showing `localizedReason` and this program's name, and checks it as
    /// unlocking does: a wrong one is asked again (up to three passcodes, each counted as a
    /// failed unlock), then `.authenticationFailed`; Cancel `.userCancel`, no way to ask (no
    /// pinentry, no terminal or display, no answer in time, or `interactionNotAllowed`)
    /// `.notInteractive`.
    public func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        start(reply) { (cancellation: PromptCancellation) throws(LAError) in
            if let failure = self.unavailability(of: policy) { throw failure }
            if policy == .deviceOwnerAuthentication {
                try self.authenticateWithBiometryOrPasscode(reason: localizedReason, cancellation: cancellation)
            } else {
                try self.authenticateWithBiometry(reason: localizedReason, cancellation: cancellation)
            }
        }
    }

    /// Evaluates `policy`, asking the user (the `async` form of `evaluatePolicy(_:localizedReason:reply:)`).
    ///
    /// - Returns: true.
    /// - Throws: an `LAError`.
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    /// Evaluates the constraints `accessControl` places on `operation`, asking the user.
    ///
    /// The constraints guard reading an item's secret (`.useItem`, `.useKeyDecrypt`) or, with
    /// `.privateKeyUsage`, the private-key operations (`.useKeySign`, `.useKeyDecrypt`,
    /// `.useKeyKeyExchange`); other operations need nothing and succeed without a prompt. Several
    /// constraints need all of them, or one with `.or`. The passcode (`.devicePasscode`, or
    /// `.userPresence` after biometry) is asked as `evaluatePolicy` asks it; biometry
    /// (`.biometryAny`, `.biometryCurrentSet`, or first for `.userPresence`) as
    /// `.deviceOwnerAuthenticationWithBiometrics` asks it; a watch fails with
    /// `LAError.companionNotAvailable`; `.applicationPassword` needs the credential set with
    /// `setCredential(_:type:)`, or asks for it through pinentry and keeps what is entered.
    public func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String,
        reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let flags = accessControl.policy.flags
        start(reply) { (cancellation: PromptCancellation) throws(LAError) in
            try self.satisfy(flags, for: operation, reason: localizedReason, cancellation: cancellation)
        }
    }

    /// The `async` form of `evaluateAccessControl(_:operation:localizedReason:reply:)`.
    public func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String
    ) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluateAccessControl(accessControl, operation: operation, localizedReason: localizedReason) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    // MARK: Running evaluations

    /// Registers an evaluation (so `invalidate()` can withdraw it), runs `body` on a private
    /// queue and replies with its outcome.
    private func start(
        _ reply: @escaping @Sendable (Bool, (any Error)?) -> Void,
        _ body: @escaping @Sendable (PromptCancellation) throws(LAError) -> Void
    ) {
        let cancellation = PromptCancellation()
        let key = ObjectIdentifier(cancellation)
        let accepted = state.withLock { current in
            guard !current.invalidated else { return false }
            current.pending[key] = cancellation
            return true
        }
        Self.queue.async {
            guard accepted else { return reply(false, LAError(code: .invalidContext)) }
            defer { _ = self.state.withLock { $0.pending.removeValue(forKey: key) } }
            do {
                try body(cancellation)
                if cancellation.isCancelled { throw LAError(code: .appCancel) }
                reply(true, nil)
            } catch {
                reply(false, cancellation.isCancelled ? LAError(code: .appCancel) : error)
            }
        }
    }

    /// The queue evaluations run and reply on.
    private static let queue = DispatchQueue(label: "LocalAuthentication.evaluation", attributes: .concurrent)

    /// Why `policy` cannot be evaluated on this context, or nil when it can.
    func unavailability(of policy: LAPolicy) -> LAError? {
        if state.withLock({ $0.invalidated }) { return LAError(code: .invalidContext) }
        switch policy {
        case .deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrWatch:
            return biometricUnavailability()
        case .deviceOwnerAuthenticationWithWatch, .deviceOwnerAuthenticationWithWristDetection:
            return LAError(code: .companionNotAvailable)
        case .deviceOwnerAuthentication:
            do {
                return try passcodeAuthority.hasPasscode() ? nil : LAError(code: .passcodeNotSet)
            } catch let error as KeychainError {
                return LAError(code: .passcodeNotSet, detail: "the keychain is not available: \(error.reason)")
            } catch {
                return LAError(code: .passcodeNotSet, detail: "the keychain is not available")
            }
        }
    }

    /// Asks for the keychain passcode and checks it; on success the context remembers it.
    func authenticateWithPasscode(reason: String, cancellation: PromptCancellation) throws(LAError) {
        let (cancelTitle, interactionNotAllowed) = state.withLock { ($0.localizedCancelTitle, $0.interactionNotAllowed) }
        if interactionNotAllowed { throw LAError(code: .notInteractive, detail: "interaction is not allowed") }
        let request = PinentryRequest.passcode(reason: reason, caller: callerName, cancelTitle: cancelTitle)
        let authority = passcodeAuthority
        let grant = state.withLock { $0.grant?.identifier }
        let issued = Mutex<(path: String, identifier: Data)?>(nil)
        let outcome = PinentryPrompter.ask(
            request, environment: environment, cancellation: cancellation, attempts: Self.passcodeAttempts
        ) { passcode in
            // The keychain checks the passcode and issues a grant that keychain calls made with
            // this context reuse.
            let (verdict, granted) = authority.authenticate(passcode, grant: grant)
            switch verdict {
            case .accepted:
                issued.withLock { $0 = granted }
                return .accepted
            case .rejected(let why): return .rejected(reason: "Wrong passcode (\(why)).")
            case .unavailable(let why): return .rejected(reason: "The passcode could not be checked (\(why)).")
            }
        }
        _ = try entered(outcome)
        let granted = issued.withLock { $0 }
        state.withLock { current in
            current.passcodeAuthenticated = true
            if let granted { current.grant = granted }
        }
        biometryLockout.reset()
    }

    /// How many passcodes one prompt takes before the evaluation fails (gpg-agent's default for
    /// a passphrase); each counts towards the keychain's failed attempts.
    static let passcodeAttempts = 3

    /// The secret of a prompt's outcome, or the LAError it amounts to.
    func entered(_ outcome: PinentryOutcome) throws(LAError) -> SecureBytes {
        switch outcome {
        case .entered(let secret): return secret
        case .rejected(let why): throw LAError(code: .authenticationFailed, detail: why)
        case .cancelled: throw LAError(code: .userCancel)
        case .unavailable(let why): throw LAError(code: .notInteractive, detail: why)
        case .interrupted: throw LAError(code: .appCancel)
        }
    }

    /// Satisfies the constraints `flags` place on `operation`.
    func satisfy(
        _ flags: AccessControlPolicy.Flags, for operation: LAAccessControlOperation, reason: String,
        cancellation: PromptCancellation
    ) throws(LAError) {
        if state.withLock({ $0.invalidated }) { throw LAError(code: .invalidContext) }
        let guarded: Set<LAAccessControlOperation> = flags.contains(.privateKeyUsage)
            ? [.useKeySign, .useKeyDecrypt, .useKeyKeyExchange] : [.useItem, .useKeyDecrypt]
        guard guarded.contains(operation) else { return }
        var constraints: [AccessControlPolicy.Flags] = []
        for constraint: AccessControlPolicy.Flags in [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .watch]
        where flags.contains(constraint) {
            constraints.append(constraint)
        }
        var firstFailure: LAError?
        var satisfied = 0
        for constraint in constraints {
            do {
                try satisfy(constraint, reason: reason, cancellation: cancellation)
                satisfied += 1
                if flags.contains(.or) { break }
            } catch {
                // A cancel or withdrawal ends the evaluation; an unavailable constraint may be
                // made up for by another under `.or`.
                if !flags.contains(.or) || [.userCancel, .appCancel, .invalidContext].contains(error.code) { throw error }
                firstFailure = firstFailure ?? error
            }
        }
        if !constraints.isEmpty && satisfied == 0, let firstFailure { throw firstFailure }
        if flags.contains(.applicationPassword) && !isCredentialSet(.applicationPassword) {
            let (cancelTitle, interactionNotAllowed) = state.withLock { ($0.localizedCancelTitle, $0.interactionNotAllowed) }
            if interactionNotAllowed { throw LAError(code: .notInteractive, detail: "interaction is not allowed") }
            let request = PinentryRequest.applicationPassword(reason: reason, caller: callerName, cancelTitle: cancelTitle)
            let password = try entered(PinentryPrompter.ask(request, environment: environment, cancellation: cancellation))
            state.withLock { $0.applicationPassword = password }
        }
    }

    /// Satisfies one constraint.
    private func satisfy(_ constraint: AccessControlPolicy.Flags, reason: String, cancellation: PromptCancellation) throws(LAError) {
        switch constraint {
        case .devicePasscode:
            if let failure = unavailability(of: .deviceOwnerAuthentication) { throw failure }
            if isPasscodeAuthenticated { return }
            try authenticateWithPasscode(reason: reason, cancellation: cancellation)
        case .userPresence:
            if let failure = unavailability(of: .deviceOwnerAuthentication) { throw failure }
            if isPasscodeAuthenticated || isBiometryAuthenticated { return }
            try authenticateWithBiometryOrPasscode(reason: reason, cancellation: cancellation)
        case .watch:
            throw LAError(code: .companionNotAvailable)
        default:
            if isBiometryAuthenticated { return }
            try authenticateWithBiometry(reason: reason, cancellation: cancellation)
        }
    }
}
