// The Swift snippets of a Keychain Services API reference, copied verbatim. The reference writes
// them as top-level statements; each is wrapped in a method of `KeychainAPIReference`, and the
// `tokenData` they use is a property. The LocalAuthentication snippets are the bodies of
// `readWithAuthenticatedContext` and `detectBiometryType`; the latter's `switch` has cases holding
// only a comment, which Swift rejects on every platform, so each gets a `break` before its comment
// (the one change to the reference's text).

import Foundation
import LocalAuthentication
import Security

struct KeychainAPIReference {
    /// The reference writes `as Error`; under this package's `ExistentialAny` setting a bare
    /// `Error` type warns, so `Error` here names `any Error` and the snippet stays as written.
    typealias Error = any Swift.Error

    /// The token the reference's snippets store.
    let tokenData = Data("token-bytes".utf8)

    // MARK: Quick reference

    func addGenericPassword() -> OSStatus {
        // Add a generic password
        let addQuery: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "[email protected]",
            kSecValueData as String: "secret".data(using: .utf8)!
        ]
        let addStatus = SecItemAdd(addQuery as CFDictionary, nil)
        return addStatus
    }

    func readGenericPassword() -> (OSStatus, Data?) {
        // Read a generic password
        let readQuery: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "[email protected]",
            kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne
        ]
        var result: AnyObject?
        let readStatus = SecItemCopyMatching(readQuery as CFDictionary, &result)
        let data = result as? Data
        return (readStatus, data)
    }

    func updateGenericPassword() -> OSStatus {
        // Update a generic password
        let updateQuery: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "[email protected]"
        ]
        let updateAttributes: [String: Any] = [
            kSecValueData as String: "newSecret".data(using: .utf8)!
        ]
        let updateStatus = SecItemUpdate(updateQuery as CFDictionary, updateAttributes as CFDictionary)
        return updateStatus
    }

    func deleteGenericPassword() -> OSStatus {
        // Delete a generic password
        let deleteQuery: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "[email protected]"
        ]
        let deleteStatus = SecItemDelete(deleteQuery as CFDictionary)
        return deleteStatus
    }

    // MARK: Creating an access control

    func createAccessControlAndAdd() -> OSStatus {
        var error: Unmanaged<CFError>?
        guard let accessControl = SecAccessControlCreateWithFlags(
            kCFAllocatorDefault,
            kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
            [.biometryCurrentSet, .or, .devicePasscode],
            &error
        ) else {
            let nsError = error!.takeRetainedValue() as Error
            fatalError("Failed to create access control: \(nsError)")
        }

        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "auth-token",
            kSecAttrAccessControl as String: accessControl,
            kSecValueData as String: tokenData
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        return status
    }

    // MARK: Interpreting OSStatus in Swift

    func addAndInterpret(_ query: [String: Any]) -> OSStatus {
        let status = SecItemAdd(query as CFDictionary, nil)
        if status != errSecSuccess {
            let message = SecCopyErrorMessageString(status, nil) as? String ?? "Unknown error"
            print("Keychain error \(status): \(message)")
        }
        return status
    }

    // MARK: Keychain sharing

    func sharedQuery() -> [String: Any] {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.shared",
            kSecAttrAccount as String: "shared-token",
            kSecAttrAccessGroup as String: "TEAMID.com.example.shared",
            kSecValueData as String: tokenData
        ]
        return query
    }

    // MARK: iCloud Keychain sync

    func syncQuery() -> [String: Any] {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.app",
            kSecAttrAccount as String: "sync-token",
            kSecAttrSynchronizable as String: true,
            kSecValueData as String: tokenData
        ]
        return query
    }

    // MARK: Using LAContext with the keychain

    func readWithAuthenticatedContext() {
        let context = LAContext()
        context.localizedReason = "Access your credentials"

        var authError: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &authError) else {
            // Biometrics unavailable — handle error or fall back to passcode
            return
        }

        context.evaluatePolicy(
            .deviceOwnerAuthenticationWithBiometrics,
            localizedReason: "Authenticate to access credentials"
        ) { success, error in
            guard success else { return }

            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "com.example.app",
                kSecAttrAccount as String: "auth-token",
                kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitOne,
                kSecUseAuthenticationContext as String: context
            ]
            var result: AnyObject?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
        }
    }

    // MARK: BiometryType detection

    func detectBiometryType() -> LABiometryType {
        let context = LAContext()
        var error: NSError?
        context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)

        switch context.biometryType {
        case .faceID:    break // Face ID available
        case .touchID:   break // Touch ID available
        case .opticID:   break // Optic ID available (visionOS)
        case .none:      break // No biometric hardware
        @unknown default: break
        }
        return context.biometryType
    }
}
