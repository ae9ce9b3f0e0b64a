import Foundation
import LocalAuthentication
import Testing

/// The LocalAuthentication snippets of the Keychain Services API reference
/// (`GuideSnippets/KeychainAPIReference.swift`), on a machine without biometry.
@Suite("LocalAuthentication snippets of the API reference")
struct LocalAuthenticationSnippetTests {
    @Test("BiometryType detection: after canEvaluatePolicy the switch sees .none (no biometric reader is supported)")
    func detectBiometryTypeSnippet() {
        #expect(KeychainAPIReference().detectBiometryType() == .none)
    }

    @Test("LAContext with the keychain: canEvaluatePolicy is false with biometryNotAvailable, so the snippet takes its fallback path")
    func readWithAuthenticatedContextSnippet() throws {
        try TemporaryKeychain.run { _ in
            var authError: NSError?
            #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &authError))
            #expect(authError?.domain == LAErrorDomain)
            #expect(authError?.code == LAError.Code.biometryNotAvailable.rawValue)
            KeychainAPIReference().readWithAuthenticatedContext()
        }
    }
}
