import Foundation
import KeychainAuthentication
import LocalAuthentication

/// Contexts for the tests: prompting through the scripted pinentry (or another environment)
/// and checking passcodes against a test keychain.
extension LAContext {
    static func testing(_ environment: PinentryEnvironment, authority: PasscodeAuthority, caller: String = "test-app") -> LAContext {
        LAContext(environment: environment, passcodeAuthority: authority, callerName: caller)
    }
}

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
