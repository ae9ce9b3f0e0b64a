import Foundation
import KeychainCore

/// The machine's fingerprint service as the keychain's biometric reader: the keychain checks
/// biometric constraints through it (`Keychain.useFingerprintReader`).
package struct FingerprintBiometrics: BiometricVerifier {
    /// The service.
    package let reader: any FingerprintVerifying

    /// The count of failed matches `reader` keeps, when it keeps one.
    package let lockout: BiometryLockout?

    /// The keychain's reader over `reader`, whose failed matches `lockout` counts when given.
    package init(_ reader: any FingerprintVerifying, lockout: BiometryLockout? = nil) {
        self.reader = reader
        self.lockout = lockout
    }

    /// The machine's fingerprint service verifying `username`'s fingers for a daemon serving
    /// several users (fprintd's `Claim(username)` and `ListEnrolledFingers(username)`), five
    /// wrong fingers in a row locking that user's biometry out, counted in the private file
    /// `lockoutFile`, until the keychain verifies the passcode.
    ///
    /// fprintd lets a caller verify another user only with polkit's
    /// `net.reactivated.fprint.device.setusername`; without it the claim is refused and biometry
    /// is unavailable (`errSecAuthFailed`, `LAError.biometryNotAvailable`).
    package static func reader(
        forUser username: String, lockoutFile: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> FingerprintBiometrics {
        let lockout = BiometryLockout(path: lockoutFile)
        return FingerprintBiometrics(
            LockoutGuardedVerifier(FprintdVerifier(environment: environment, username: username), lockout: lockout), lockout: lockout)
    }

    package func passcodeVerified() {
        lockout?.reset()
    }

    /// The enrolled set; nil also when the service cannot be reached (no system bus, no
    /// fprintd): for the keychain that is a machine without biometry, not a failed request.
    package func enrolledSet() throws -> [UInt8]? {
        guard let enrolled = try? reader.enrolledFingerprints() else { return nil }
        return enrolled.canonicalBytes
    }

    package func verify(reason: String) -> BiometricOutcome {
        verify(reason: reason, cancellation: nil)
    }

    /// One verification, which `cancellation` withdraws: the reader stops waiting for a finger
    /// and releases the device.
    package func verify(reason: String, cancellation: (any BiometricCancellation)?) -> BiometricOutcome {
        let prompt = PromptCancellation()
        if let cancellation { cancellation.onCancel { prompt.cancel() } }
        defer { cancellation?.removeCancelAction() }
        switch reader.verify(reason: reason, cancellation: prompt) {
        case .matched: return .matched
        case .noMatch: return .noMatch
        case .lockedOut: return .lockedOut
        case .cancelled: return .cancelled
        case .unavailable(let reason): return .unavailable(reason: reason)
        }
    }
}

extension Keychain {
    /// Checks biometric constraints with `reader` from now on; nil (the default) makes biometry
    /// unavailable, so biometric constraints fail unless `.or` lets the passcode serve.
    package func useFingerprintReader(_ reader: (any FingerprintVerifying)?) {
        useBiometrics(reader.map { FingerprintBiometrics($0) })
    }
}

extension FingerprintBiometrics {
    /// The machine's fingerprint service (fprintd on the system bus), with the user's biometric
    /// lockout shared with `LAContext`: five wrong fingers in a row lock biometry out until the
    /// passcode is entered.
    package static var machineReader: FingerprintBiometrics {
        let lockout = BiometryLockout.user
        return FingerprintBiometrics(LockoutGuardedVerifier(FprintdVerifier(), lockout: lockout), lockout: lockout)
    }

    /// Makes the machine's fingerprint service the reader of this process's keychains (those
    /// given no reader of their own), once per process.
    package static func useMachineReaderForKeychains() {
        _ = installMachineReader
    }

    private static let installMachineReader: Void = Keychain.useBiometricsByDefault(MachineReader())
}

/// The machine's reader, made when a keychain first checks biometry rather than when it is
/// installed: making it reads the process's environment, which costs a fifth of a short
/// `security` run that never needs biometry.
private struct MachineReader: BiometricVerifier {
    private static let reader = FingerprintBiometrics.machineReader

    func enrolledSet() throws -> [UInt8]? { try Self.reader.enrolledSet() }

    func verify(reason: String) -> BiometricOutcome { Self.reader.verify(reason: reason) }

    func verify(reason: String, cancellation: (any BiometricCancellation)?) -> BiometricOutcome {
        Self.reader.verify(reason: reason, cancellation: cancellation)
    }

    func passcodeVerified() { Self.reader.passcodeVerified() }
}
