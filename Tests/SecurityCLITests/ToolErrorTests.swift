import KeychainCore
import Security
import Testing

@testable import SecurityCLI

/// The `security` command reports an engine error with the status the `Security` functions
/// return for it, and prints that status's message.
@Suite("Tool errors")
struct ToolErrorTests {
    @Test("An engine error's result and message are the Security surface's status for its code", arguments: KeychainError.Code.allCases)
    func engineErrorUsesTheSurfaceStatus(code: KeychainError.Code) {
        let status = StatusMapping.status(for: code)
        let failure = ToolError.api("SecKeychainItemCopyContent", KeychainError(code, "a reason"))
        #expect(failure.result == status, "\(code): \(failure.result), not \(status)")
        let message = SecCopyErrorMessageString(status, nil) as String?
        #expect(failure.message?.hasPrefix("security: SecKeychainItemCopyContent: \(message ?? "")\n") == true, "\(failure.message ?? "")")
    }

    @Test("An error that is not the engine's is errSecInternalComponent")
    func otherErrorsAreInternalComponent() {
        struct Unknown: Error {}
        #expect(ToolError.api("SecItemAdd", Unknown()).result == errSecInternalComponent)
    }
}
