/// A fingerprint verifier that applies the user's biometric lockout: while `lockout` is locked
/// out it answers `.lockedOut` without asking for a finger; a wrong finger counts towards it
/// (the one reaching the limit is answered `.lockedOut`), a matching one clears it.
///
/// For code that verifies through `FingerprintVerifying` alone (the keychain's own checks), so
/// that its attempts and `LAContext`'s share one count.
package struct LockoutGuardedVerifier: FingerprintReaderReporting {
    /// The verifier asked for fingers.
    package let verifier: any FingerprintVerifying
    /// The count of failed matches in a row.
    package let lockout: BiometryLockout

    /// `verifier` guarded by `lockout`.
    package init(_ verifier: any FingerprintVerifying, lockout: BiometryLockout) {
        self.verifier = verifier
        self.lockout = lockout
    }

    package func enrolledFingerprints() throws -> EnrolledFingerprints? {
        try verifier.enrolledFingerprints()
    }

    package func readerState() throws -> FingerprintReaderState {
        try verifier.currentReaderState()
    }

    package func verify(reason: String, cancellation: PromptCancellation) -> FingerprintVerdict {
        if lockout.isLockedOut { return .lockedOut }
        let verdict = verifier.verify(reason: reason, cancellation: cancellation)
        switch verdict {
        case .matched:
            lockout.reset()
        case .noMatch:
            if lockout.recordFailure() { return .lockedOut }
        case .lockedOut, .cancelled, .unavailable:
            break
        }
        return verdict
    }
}
