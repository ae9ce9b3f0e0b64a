import Foundation
import KeychainAuthentication
import KeychainCore

extension LAContext {
    /// How many fingers one biometric evaluation takes before it fails with
    /// `LAError.authenticationFailed` (each failed match also counts towards the lockout).
    static let biometricAttempts = 3

    /// The enrolled set when biometry can be used now, or the `LAError` saying why not:
    /// `biometryNotAvailable` without fprintd or a reader, `biometryNotEnrolled` without an
    /// enrolled finger, `passcodeNotSet` when the keychain has no passcode (biometry needs one to
    /// fall back on and to lift a lockout), `biometryLockout` after `BiometryLockout.limit`
    /// failed matches in a row.
    func biometricReadiness() -> Result<EnrolledFingerprints, LAError> {
        let reader: FingerprintReaderState
        do {
            reader = try fingerprints.currentReaderState()
        } catch {
            return .failure(LAError(code: .biometryNotAvailable, detail: "the fingerprint service cannot be reached"))
        }
        switch reader {
        case .noReader:
            return .failure(LAError(code: .biometryNotAvailable, detail: "no fingerprint reader"))
        case .notEnrolled:
            return .failure(LAError(code: .biometryNotEnrolled))
        case .enrolled(let enrolled):
            if let failure = unavailability(of: .deviceOwnerAuthentication) { return .failure(failure) }
            if biometryLockout.isLockedOut {
                return .failure(LAError(code: .biometryLockout, detail: "too many failed matches: the passcode is needed"))
            }
            return .success(enrolled)
        }
    }

    /// Whether `policy` can use biometry now; on success the context notes the enrolled set
    /// (its `evaluatedPolicyDomainState`).
    func biometricUnavailability() -> LAError? {
        switch biometricReadiness() {
        case .failure(let error):
            return error
        case .success(let enrolled):
            state.withLock { $0.evaluatedFingerprints = enrolled }
            return nil
        }
    }

    /// Asks for a finger up to `biometricAttempts` times; the keychain verifies it with its own
    /// reader (in `keychaind`, the daemon's) and, on a match, records it in a grant the context
    /// keeps, so a keychain call made with this context (`kSecUseAuthenticationContext`) opens
    /// biometric items without a second finger. On a match the context also remembers the
    /// enrolled set it saw.
    ///
    /// A wrong finger counts towards the lockout (the keychain's reader counts it;
    /// `LAError.biometryLockout` once it is reached); a cancel by the caller is `appCancel`; the
    /// other ends are mapped by `error(forUnavailable:)`.
    func authenticateWithBiometry(reason: String, cancellation: PromptCancellation) throws(LAError) {
        let interactionNotAllowed = state.withLock { current -> Bool? in
            current.invalidated ? nil : current.interactionNotAllowed
        }
        guard let interactionNotAllowed else { throw LAError(code: .invalidContext) }
        if interactionNotAllowed { throw LAError(code: .notInteractive, detail: "interaction is not allowed") }
        let enrolled: EnrolledFingerprints
        switch biometricReadiness() {
        case .failure(let error): throw error
        case .success(let set): enrolled = set
        }
        let keychain: any KeychainHandle
        do {
            keychain = try passcodeAuthority.keychain()
        } catch {
            throw LAError(code: .biometryNotAvailable, detail: "the keychain that verifies the finger is not available")
        }
        for _ in 0..<Self.biometricAttempts {
            let held = state.withLock { $0.grant?.path == keychain.path ? $0.grant?.identifier : nil }
            let outcome: BiometricOutcome
            do {
                let issued = try keychain.authenticateBiometry(reason: reason, grant: held, cancellation: cancellation)
                state.withLock { current in
                    current.grant = (keychain.path, issued)
                    current.biometryAuthenticated = true
                    current.evaluatedFingerprints = enrolled
                }
                return
            } catch let error as KeychainError {
                guard let failure = BiometricOutcome(failure: error) else {
                    throw LAError(code: .biometryNotAvailable, detail: "the keychain could not verify the finger: \(error.reason)")
                }
                outcome = failure
            } catch {
                throw LAError(code: .biometryNotAvailable, detail: "the keychain could not verify the finger")
            }
            switch outcome {
            case .matched, .noMatch:
                continue
            case .lockedOut:
                throw LAError(code: .biometryLockout, detail: "too many failed matches: the passcode is needed")
            case .cancelled:
                throw LAError(code: cancellation.isCancelled ? .appCancel : .userCancel)
            case .unavailable(let why):
                throw error(forUnavailable: why)
            }
        }
        throw LAError(code: .authenticationFailed, detail: "no finger matched in \(Self.biometricAttempts) attempts")
    }

    /// Biometry first when it can be used, then the keychain passcode: after a lockout, three
    /// wrong fingers, the fallback choice, or a reader that is missing or fails. A cancel ends
    /// the evaluation without the passcode.
    func authenticateWithBiometryOrPasscode(reason: String, cancellation: PromptCancellation) throws(LAError) {
        if case .success = biometricReadiness(), !state.withLock({ $0.interactionNotAllowed }) {
            do {
                try authenticateWithBiometry(reason: reason, cancellation: cancellation)
                return
            } catch where [.userCancel, .appCancel, .invalidContext, .systemCancel].contains(error.code) {
                throw error
            } catch {
                // Falls back to the passcode.
            }
        }
        try authenticateWithPasscode(reason: reason, cancellation: cancellation)
    }

    /// The `LAError` of a verification that ended without a verdict: no finger in time is the
    /// fallback choice (`userFallback`; `systemCancel` when `localizedFallbackTitle` is empty,
    /// hiding the fallback), a disconnected reader `biometryDisconnected`, no enrolled finger
    /// `biometryNotEnrolled`, a reader that failed `authenticationFailed`, and a missing, busy
    /// or refused reader or service `biometryNotAvailable`.
    func error(forUnavailable reason: String) -> LAError {
        switch FingerprintUnavailability(reason: reason) {
        case .timedOut:
            let hidden = state.withLock { $0.localizedFallbackTitle == "" }
            return LAError(code: hidden ? .systemCancel : .userFallback, detail: reason)
        case .disconnected: return LAError(code: .biometryDisconnected, detail: reason)
        case .notEnrolled: return LAError(code: .biometryNotEnrolled, detail: reason)
        case .failed: return LAError(code: .authenticationFailed, detail: reason)
        case .noReader, .serviceUnreachable, .busy, .denied, nil: return LAError(code: .biometryNotAvailable, detail: reason)
        }
    }
}
