import Foundation
import KeychainAuthentication
import LocalAuthentication
@_spi(Testing) import Security
import Testing

/// Stored private keys whose access control has constraints (in-process and through
/// `keychaind`): the keychain keeps the private key, the `SecKey` is a reference, and the
/// passcode is asked through the scripted pinentry.
@Suite("Access control of keys")
struct KeyAccessControlTests {
    static let passcode = "2580"
    static let tag = Data("acl-key".utf8)
    static let message = Data("message to sign".utf8)

    /// Sets the passcode (unless `settingPasscode` is false: it is set) and generates a permanent
    /// P-256 key whose private key has `flags` (and, when given, `context` as its authentication
    /// context).
    static func generate(_ flags: SecAccessControlCreateFlags, context: LAContext? = nil, settingPasscode: Bool = true) throws -> SecKey {
        if settingPasscode {
            #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
            #expect(SecDataProtectionTesting.setPasscode(Data(passcode.utf8), old: nil) == errSecSuccess)
        }
        let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
        var privateAttributes: Query = [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag, kSecAttrAccessControl as String: control,
        ]
        if let context { privateAttributes[kSecUseAuthenticationContext as String] = context }
        return try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [kSecPrivateKeyAttrs as String: privateAttributes])
    }

    /// The stored private key found by `SecItemCopyMatching(kSecReturnRef)` with `extra`.
    static func find(_ extra: Query = [:]) throws -> SecKey {
        let (status, result) = copyMatching(merged([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnRef as String: true,
        ], extra))
        #expect(status == errSecSuccess)
        return try #require(result.map { $0 as! SecKey })
    }

    /// The status of signing `message` with `key` (errSecSuccess, or the CFError's code), and
    /// the signature.
    static func signing(_ key: SecKey) -> (status: OSStatus, signature: Data?) {
        var error: Unmanaged<CFError>?
        let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error)
        if let signature { return (errSecSuccess, signature as Data) }
        return (OSStatus(error?.takeRetainedValue().code ?? -1), nil)
    }

    /// The status of exporting `key` (errSecSuccess, or the CFError's code), and its bytes.
    static func exporting(_ key: SecKey) -> (status: OSStatus, data: Data?) {
        var error: Unmanaged<CFError>?
        let data = SecKeyCopyExternalRepresentation(key, &error)
        if let data { return (errSecSuccess, data as Data) }
        return (OSStatus(error?.takeRetainedValue().code ?? -1), nil)
    }

    @Test("privateKeyUsage: one LAContext given at generation asks once for two signatures; the signatures verify with the public key")
    func contextReuseAtGeneration() throws {
        try TemporaryKeychain.run { environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let context = pinentry.context(.pin, pin: Self.passcode)
            let key = try Self.generate([.privateKeyUsage, .devicePasscode], context: context)
            #expect(pinentry.prompts == 0)
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            for _ in 0..<2 {
                let (status, signature) = Self.signing(key)
                #expect(status == errSecSuccess)
                #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message, try #require(signature)) == errSecSuccess)
            }
            #expect(pinentry.prompts == 1)
        }
    }

    @Test("privateKeyUsage: a key found by kSecReturnRef with a context asks once; without a context each signature asks")
    func lookupReferences() throws {
        try TemporaryKeychain.run { environment in
            _ = try Self.generate([.privateKeyUsage, .devicePasscode])
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let found = try Self.find([kSecUseAuthenticationContext as String: pinentry.context(.pin, pin: Self.passcode)])
            #expect(Self.signing(found).status == errSecSuccess)
            #expect(Self.signing(found).status == errSecSuccess)
            #expect(pinentry.prompts == 1)

            let fresh = ScriptedPinentry(directory: environment.dataHome)
            OneCallAuthentication.overrideDefaultEnvironment(fresh.environment(.pin, pin: Self.passcode))
            defer { OneCallAuthentication.overrideDefaultEnvironment(nil) }
            let bare = try Self.find()
            #expect(Self.signing(bare).status == errSecSuccess)
            #expect(Self.signing(bare).status == errSecSuccess)
            #expect(fresh.prompts == 2)
        }
    }

    @Test("privateKeyUsage: Fail and interactionNotAllowed are errSecInteractionNotAllowed, cancel errSecUserCanceled, wrong passcodes errSecAuthFailed")
    func failures() throws {
        try TemporaryKeychain.run { environment in
            _ = try Self.generate([.privateKeyUsage, .devicePasscode])
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            #expect(Self.signing(try Self.find([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])).status == errSecInteractionNotAllowed)
            #expect(pinentry.prompts == 0)
            let quiet = pinentry.context(.pin, pin: Self.passcode)
            quiet.interactionNotAllowed = true
            #expect(Self.signing(try Self.find([kSecUseAuthenticationContext as String: quiet])).status == errSecInteractionNotAllowed)
            #expect(Self.signing(try Self.find([kSecUseAuthenticationContext as String: pinentry.context(.cancel)])).status == errSecUserCanceled)
            let wrong = pinentry.context(.pin, pin: Self.passcode, pins: ["1111", "2222", "3333"])
            #expect(Self.signing(try Self.find([kSecUseAuthenticationContext as String: wrong])).status == errSecAuthFailed)
        }
    }

    @Test("privateKeyUsage: decryption and key exchange need the constraint too; encryption and the public key need nothing")
    func decryptionAndKeyExchange() throws {
        try TemporaryKeychain.run { environment in
            _ = try Self.generate([.privateKeyUsage, .devicePasscode])
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let refusing = try Self.find([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])
            let publicKey = try #require(SecKeyCopyPublicKey(refusing))
            let plaintext = Data("a secret for the key".utf8)
            let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, .eciesEncryptionStandardX963SHA256AESGCM, plaintext as CFData, nil)) as Data
            let peer = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
            let peerPublic = try #require(SecKeyCopyPublicKey(peer))
            #expect(errorCode { SecKeyCreateDecryptedData(refusing, .eciesEncryptionStandardX963SHA256AESGCM, ciphertext as CFData, $0) } == Int(errSecInteractionNotAllowed))
            #expect(errorCode { SecKeyCopyKeyExchangeResult(refusing, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, $0) } == Int(errSecInteractionNotAllowed))
            #expect(pinentry.prompts == 0)

            let key = try Self.find([kSecUseAuthenticationContext as String: pinentry.context(.pin, pin: Self.passcode)])
            let decrypted = SecKeyCreateDecryptedData(key, .eciesEncryptionStandardX963SHA256AESGCM, ciphertext as CFData, nil) as Data?
            #expect(decrypted == plaintext)
            let shared = SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, nil) as Data?
            let expected = SecKeyCopyKeyExchangeResult(peer, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, nil) as Data?
            #expect(shared != nil)
            #expect(shared == expected)
            #expect(pinentry.prompts == 1)
        }
    }

    @Test("privateKeyUsage: the private key's data is refused without authentication, by the SecKey and by kSecReturnData")
    func exportRefused() throws {
        try TemporaryKeychain.run { environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let key = try Self.generate([.privateKeyUsage, .devicePasscode], context: pinentry.context(.cancel))
            #expect(Self.exporting(key).status == errSecUserCanceled)
            let failing = try Self.find([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])
            #expect(Self.exporting(failing).status == errSecInteractionNotAllowed)
            let attributes = SecKeyCopyAttributes(failing) as? [String: Any]
            #expect(attributes?[kSecValueData as String] == nil)
            let data = copyMatching([
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnData as String: true,
                kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ])
            #expect(data.status == errSecInteractionNotAllowed)
            #expect(data.result == nil)
        }
    }

    @Test("Without privateKeyUsage the constraint guards export, not use: signing asks nothing; export asks, then gives the key")
    func exportGuardWithoutPrivateKeyUsage() throws {
        try TemporaryKeychain.run { environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let key = try Self.generate(.devicePasscode, context: pinentry.context(.pin, pin: Self.passcode))
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let failing = try Self.find([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])
            let (status, signature) = Self.signing(failing)
            #expect(status == errSecSuccess)
            #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message, try #require(signature)) == errSecSuccess)
            #expect(Self.exporting(failing).status == errSecInteractionNotAllowed)
            #expect(pinentry.prompts == 0)

            let exported = try #require(Self.exporting(key).data)
            #expect(pinentry.prompts == 1)
            #expect(exported.count == 97)
            #expect(exported.prefix(65) == external(publicKey))
            let copy = try #require(SecKeyCreateWithData(exported as CFData, [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ] as CFDictionary, nil))
            #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message, try sign(copy, .ecdsaSignatureMessageX962SHA256, Self.message)) == errSecSuccess)
        }
    }

    @Test("applicationPassword: the password set on the key's LAContext seals the generated key and serves each use without a prompt; another password is errSecAuthFailed; without one, Fail is errSecInteractionNotAllowed and each use asks through pinentry")
    func applicationPasswordKeys() throws {
        try TemporaryKeychain.run { environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let owner = pinentry.context(.cancel)
            owner.setCredential(Data("hunter2".utf8), type: .applicationPassword)
            let key = try Self.generate([.applicationPassword, .privateKeyUsage], context: owner, settingPasscode: false)
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            for _ in 0..<2 {
                let (status, signature) = Self.signing(key)
                #expect(status == errSecSuccess)
                #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message, try #require(signature)) == errSecSuccess)
            }
            #expect(pinentry.prompts == 0)
            // The keychain holds the key: its data is not in this process, and exports only with the password.
            #expect((SecKeyCopyAttributes(key) as? [String: Any])?[kSecValueData as String] == nil)
            #expect(Self.exporting(try Self.find([kSecUseAuthenticationContext as String: owner])).data?.count == 97)

            let intruder = pinentry.context(.cancel)
            intruder.setCredential(Data("hunter3".utf8), type: .applicationPassword)
            let wrong = copyMatching([
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag, kSecReturnRef as String: true,
                kSecUseAuthenticationContext as String: intruder,
            ])
            #expect(wrong.status == errSecAuthFailed)
            let failing = copyMatching([
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag, kSecReturnRef as String: true,
                kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ])
            #expect(failing.status == errSecInteractionNotAllowed)
            #expect(pinentry.prompts == 0)

            OneCallAuthentication.overrideDefaultEnvironment(pinentry.environment(.pin, pin: "hunter2"))
            defer { OneCallAuthentication.overrideDefaultEnvironment(nil) }
            let asked = try Self.find()
            #expect(Self.signing(asked).status == errSecSuccess)
            #expect(Self.signing(asked).status == errSecSuccess)
            #expect(pinentry.prompts == 3)
        }
    }

    @Test("kSecAttrTokenID inside kSecPrivateKeyAttrs of a key with constraints is errSecParam (it belongs at the top level), and nothing is stored")
    func tokenIDBelowTheTopLevelIsRefused() throws {
        try TemporaryKeychain.run { _ in
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .applicationPassword], nil))
            let context = LAContext()
            context.setCredential(Data("hunter2".utf8), type: .applicationPassword)
            let parameters: Query = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecPrivateKeyAttrs as String: [
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag, kSecAttrAccessControl as String: control,
                    kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecUseAuthenticationContext as String: context,
                ] as [String: Any],
            ]
            #expect(errorCode { SecKeyCreateRandomKey(parameters as CFDictionary, $0) } == Int(errSecParam))
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
        }
    }

    @Test("Reading a protected key's attributes and deleting it never ask")
    func attributesAndDeletion() throws {
        try TemporaryKeychain.run { environment in
            _ = try Self.generate([.privateKeyUsage, .devicePasscode])
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let query: Query = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ]
            let attributes = copyMatching(merged(query, [
                kSecReturnAttributes as String: true, kSecUseAuthenticationContext as String: pinentry.context(.cancel),
            ]))
            #expect(attributes.status == errSecSuccess)
            #expect((attributes.result as? [String: Any])?[kSecAttrApplicationTag as String] as? Data == Self.tag)
            #expect(delete(query) == errSecSuccess)
            #expect(copyMatching(merged(query, [kSecReturnRef as String: true])).status == errSecItemNotFound)
            #expect(pinentry.prompts == 0)
        }
    }

    @Test("Constraints of a key as of an item: biometry without a reader is errSecAuthFailed without a prompt; with .or the passcode suffices")
    func constraintCombinations() throws {
        try TemporaryKeychain.run { environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let biometric = try Self.generate([.privateKeyUsage, .biometryAny], context: pinentry.context(.pin, pin: Self.passcode))
            #expect(Self.signing(biometric).status == errSecAuthFailed)
            #expect(pinentry.prompts == 0)
            #expect(delete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag]) == errSecSuccess)
            let either = try Self.generate(
                [.privateKeyUsage, .biometryAny, .or, .devicePasscode], context: pinentry.context(.pin, pin: Self.passcode), settingPasscode: false)
            #expect(Self.signing(either).status == errSecSuccess)
            #expect(pinentry.prompts == 1)
        }
    }

    @Test("A key the keychain holds cannot be added again by value (errSecParam): its private key is not in the process")
    func heldKeyIsNotAddedByValue() throws {
        try TemporaryKeychain.run { _ in
            let key = try Self.generate([.privateKeyUsage, .devicePasscode])
            let status = add([
                kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrApplicationTag as String: Data("copy".utf8),
            ])
            #expect(status == errSecParam)
        }
    }

    @Test("A permanent key without access control is returned whole, as before")
    func keysWithoutAccessControl() throws {
        try TemporaryKeychain.run { _ in
            let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag],
            ])
            #expect(Self.exporting(key).data?.count == 97)
            let found = try Self.find([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])
            #expect(Self.exporting(found).data == Self.exporting(key).data)
            // A key carrying its private half reports it among its attributes, as a software key does.
            #expect((SecKeyCopyAttributes(found) as? [String: Any])?[kSecValueData as String] as? Data == Self.exporting(key).data)
        }
    }
}
