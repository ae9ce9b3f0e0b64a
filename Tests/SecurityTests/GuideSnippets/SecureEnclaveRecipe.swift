// Apple's Secure Enclave recipe ("Protecting keys with the Secure Enclave", with the signing and
// key-retrieval snippets of "Signing and Verifying" and "Storing Keys in the Keychain"), copied
// as Apple writes it; each step is a method of `SecureEnclaveRecipe`, the placeholders Apple
// leaves (`<#an error#>`) are `RecipeError` values.

import Foundation
import Security

struct SecureEnclaveRecipe {
    /// Apple writes `as Error`; under this package's `ExistentialAny` setting a bare `Error` type
    /// warns, so `Error` here names `any Error` and the snippets stay as written.
    typealias Error = any Swift.Error

    /// What the recipe's placeholders throw.
    struct RecipeError: Swift.Error {
        let status: OSStatus
    }

    let tag = "com.example.keys.mykey".data(using: .utf8)!

    func createKey() throws -> SecKey {
        let access =
            SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                            kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                            .privateKeyUsage,
                                            nil)!   // Ignore errors.
        let attributes: NSDictionary = [
            kSecAttrKeyType: kSecAttrKeyTypeEC,
            kSecAttrKeySizeInBits: 256,
            kSecAttrTokenID: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs: [
                kSecAttrIsPermanent: true,
                kSecAttrApplicationTag: tag,
                kSecAttrAccessControl: access
            ]
        ]
        var error: Unmanaged<CFError>?
        guard let privateKey = SecKeyCreateRandomKey(attributes, &error) else {
            throw error!.takeRetainedValue() as Error
        }
        return privateKey
    }

    func signAndVerify(_ privateKey: SecKey, _ data: Data) throws -> Data {
        guard let publicKey = SecKeyCopyPublicKey(privateKey) else { throw RecipeError(status: errSecInvalidKeyRef) }
        let algorithm: SecKeyAlgorithm = .ecdsaSignatureMessageX962SHA256
        guard SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm) else {
            throw RecipeError(status: errSecParam)
        }
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(privateKey,
                                                    algorithm,
                                                    data as CFData,
                                                    &error) as Data? else {
            throw error!.takeRetainedValue() as Error
        }
        guard SecKeyVerifySignature(publicKey,
                                    algorithm,
                                    data as CFData,
                                    signature as CFData,
                                    &error) else {
            throw error!.takeRetainedValue() as Error
        }
        return signature
    }

    func exportPrivateKey(_ privateKey: SecKey) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let data = SecKeyCopyExternalRepresentation(privateKey, &error) as Data? else {
            throw error!.takeRetainedValue() as Error
        }
        return data
    }

    func retrieveKey() throws -> SecKey {
        let getquery: [String: Any] = [kSecClass as String: kSecClassKey,
                                       kSecAttrApplicationTag as String: tag,
                                       kSecAttrKeyType as String: kSecAttrKeyTypeEC,
                                       kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                                       kSecReturnRef as String: true]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(getquery as CFDictionary, &item)
        guard status == errSecSuccess else { throw RecipeError(status: status) }
        let key = item as! SecKey
        return key
    }
}
