/// How one biometric verification ended.
package enum BiometricOutcome: Equatable, Sendable {
    /// An enrolled biometric matched.
    case matched
    /// It did not match.
    case noMatch
    /// Too many failures: the reader refuses until the passcode is entered.
    case lockedOut
    /// The user cancelled.
    case cancelled
    /// No reader, nothing enrolled, or the service could not be reached (`reason` says which).
    case unavailable(reason: String)
}

/// Lets the caller of a biometric verification withdraw it from another thread (an `LAContext`
/// invalidated while the reader waits for a finger): the reader stops waiting and the
/// verification ends as cancelled.
public protocol BiometricCancellation: Sendable {
    /// Whether the verification was withdrawn.
    var isCancelled: Bool { get }
    /// Runs `action` once when the verification is withdrawn (at once if it was already).
    func onCancel(_ action: @escaping @Sendable () -> Void)
    /// Withdraws the action `onCancel` registered.
    func removeCancelAction()
}

/// The machine's biometric reader as the keychain uses it to check biometric constraints itself:
/// a keychain without one (the default) treats biometry as unavailable.
package protocol BiometricVerifier: Sendable {
    /// The enrolled set in a canonical encoding (equal sets, equal bytes), or nil when there is
    /// no reader or nothing is enrolled.
    func enrolledSet() throws -> [UInt8]?
    /// Asks the user for one verification, showing `reason`.
    func verify(reason: String) -> BiometricOutcome
    /// Asks the user for one verification, showing `reason`; `cancellation` withdraws it.
    func verify(reason: String, cancellation: (any BiometricCancellation)?) -> BiometricOutcome
    /// The keychain verified the user's passcode: a reader that counts failed matches clears the
    /// count (the passcode lifts a biometric lockout).
    func passcodeVerified()
}

extension BiometricVerifier {
    /// A reader that cannot be interrupted ignores `cancellation`.
    package func verify(reason: String, cancellation: (any BiometricCancellation)?) -> BiometricOutcome {
        verify(reason: reason)
    }

    /// A reader without a failure count has nothing to clear.
    package func passcodeVerified() {}
}

extension BiometricOutcome {
    /// The reason of the keychain's error for a finger that did not match.
    static let noMatchReason = "the biometry did not match"
    /// The reason of the keychain's error for a locked-out reader.
    static let lockedOutReason = "biometry is locked out"
    /// The start of the reason of the keychain's error when biometry cannot be used.
    static let unavailableReason = "biometry is not available"

    /// The error the keychain answers for a verification that did not match (nil for a match):
    /// `errSecAuthFailed`, or `errSecUserCanceled` for a cancel; its reason tells the outcome
    /// apart for `init(failure:)`, across `keychaind`'s protocol too.
    var failure: KeychainError? {
        switch self {
        case .matched: return nil
        case .noMatch: return KeychainError(.authFailed, Self.noMatchReason)
        case .lockedOut: return KeychainError(.authFailed, Self.lockedOutReason)
        case .cancelled: return Self.cancelledError
        case .unavailable(let reason): return Self.unavailableError(reason)
        }
    }

    /// The keychain's error for a verification the user or the caller cancelled.
    package static let cancelledError = KeychainError(.userCanceled, "the biometric check was cancelled")

    /// The keychain's error when biometry cannot be used (`reason`, when not empty, says why).
    static func unavailableError(_ reason: String) -> KeychainError {
        KeychainError(.authFailed, reason.isEmpty ? unavailableReason : unavailableReason + ": " + reason)
    }

    /// The outcome an error of `KeychainHandle.authenticateBiometry` stands for; nil for an
    /// error that is not about the verification (a storage failure, a malformed request).
    package init?(failure error: KeychainError) {
        switch (error.code, error.reason) {
        case (.userCanceled, _): self = .cancelled
        case (.authFailed, Self.noMatchReason): self = .noMatch
        case (.authFailed, Self.lockedOutReason): self = .lockedOut
        case (.authFailed, Self.unavailableReason): self = .unavailable(reason: "")
        case (.authFailed, let reason) where reason.hasPrefix(Self.unavailableReason + ": "):
            self = .unavailable(reason: String(reason.dropFirst(Self.unavailableReason.count + 2)))
        default: return nil
        }
    }
}
