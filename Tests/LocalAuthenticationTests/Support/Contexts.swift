import Foundation
import KeychainAuthentication
import KeychainCrypto
import LocalAuthentication

/// Contexts for the tests: prompting through the scripted pinentry (or another environment)
/// and checking passcodes against a test keychain.
extension LAContext {
    /// A context whose fingerprint service is `fingerprints` (by default, fprintd on a bus that
    /// does not exist: no biometry), counting failed matches in `lockout` (by default its own)
    /// and hashing the domain state under a fixed test key for `program`.
    static func testing(
        _ environment: PinentryEnvironment, authority: PasscodeAuthority, caller: String = "test-app",
        fingerprints: any FingerprintVerifying = FprintdVerifier(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"]),
        lockout: BiometryLockout = .inMemory(), program: String = "/usr/bin/test-app"
    ) -> LAContext {
        LAContext(
            environment: environment, passcodeAuthority: authority, callerName: caller, fingerprints: fingerprints,
            biometryLockout: lockout, domainStateKey: { BiometryDomainState(key: testDomainStateKey) }, programIdentity: program)
    }
}

/// The domain-state key of test contexts.
let testDomainStateKey = SecureBytes(copying: Data(repeating: 0x5A, count: 32))

/// The `LAError` code of `error`, or nil for another error.
func laCode(_ error: (any Error)?) -> LAError.Code? {
    (error as? LAError)?.code
}

/// Runs the reply-based evaluation `start` and returns what its reply received.
func replied(_ start: (@escaping @Sendable (Bool, (any Error)?) -> Void) -> Void) async -> (Bool, (any Error)?) {
    await withCheckedContinuation { continuation in
        start { success, error in continuation.resume(returning: (success, error)) }
    }
}

/// An evaluation started now whose reply is awaited later, blocking: for tests that meanwhile
/// block their own thread (reading a terminal), so that nothing waits for the cooperative pool.
final class Evaluation: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var outcome: (Bool, (any Error)?) = (false, nil)

    init(_ start: (@escaping @Sendable (Bool, (any Error)?) -> Void) -> Void) {
        start { success, error in
            self.outcome = (success, error)
            self.done.signal()
        }
    }

    /// Waits for the reply.
    func result() -> (Bool, (any Error)?) {
        done.wait()
        return outcome
    }
}
