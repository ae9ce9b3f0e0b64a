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

    @Test("An LAContext passed in kSecUseAuthenticationContext is accepted; an item without access control is read without it being asked")
    func contextInQuery() throws {
        try TemporaryKeychain.run { _ in
            let add: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.app",
                kSecAttrAccount as String: "auth-token", kSecValueData as String: Data("token".utf8),
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            let context = LAContext()
            context.interactionNotAllowed = true
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.app",
                kSecAttrAccount as String: "auth-token", kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitOne, kSecUseAuthenticationContext as String: context,
            ]
            var result: AnyObject?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("token".utf8))
        }
    }
}
