import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainService
import KeychainTestSupport
import LocalAuthentication
@_spi(Testing) import Security
import Testing

/// Keys with `kSecAttrTokenIDSecureEnclave` on a real TPM 2.0 stack: a `swtpm` of each test's own
/// (socket mode, its own state directory) selected with `KEYCHAIN_TPM`. The TPM does the private
/// key's work; everything else (public key, verification, encryption) is checked in software or
/// with the `openssl` command.
@Suite("Secure Enclave keys on a TPM 2.0 (swtpm)", .serialized)
struct SecureEnclaveKeyTests {
    /// Runs `body` in a fresh keychain with `KEYCHAIN_TPM` selecting a TPM of the test's own,
    /// stopped when `body` returns (a TPM kept for the whole process would outlive it: nothing
    /// releases a static when a process exits). In-process, the keychain is created before the
    /// TPM is selected, so its device key stays in a file and the `security` processes a test
    /// starts (which do not see the test's TPM) open it too. Through `keychaind`, the keychain is
    /// served by a daemon of the test's own that has the TPM (`TPMKeychainDaemon`): the keys the
    /// keychain holds are made and used in the TPM by the daemon.
    /// Runs `body` on a TPM-bound keychain whose passcode is "2580", with the calls' prompts going
    /// to a scripted pinentry that types it.
    private func withPasscodePrompt<T>(_ body: (ScriptedPinentry) throws -> T) throws -> T {
        try withTPM { _, environment in
            #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
            #expect(SecDataProtectionTesting.setPasscode(Data("2580".utf8), old: nil) == errSecSuccess)
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            OneCallAuthentication.overrideDefaultEnvironment(pinentry.environment(.pin, pin: "2580"))
            defer { OneCallAuthentication.overrideDefaultEnvironment(nil) }
            return try body(pinentry)
        }
    }

    /// `.privateKeyUsage | .devicePasscode`, this device only, when unlocked.
    static func passcodeForUse() throws -> SecAccessControl {
        try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .devicePasscode], nil))
    }

    private func withTPM<T>(_ body: (SoftwareTPM, TemporaryKeychain.Environment) throws -> T) throws -> T {
        try TemporaryKeychain.run { environment in
            guard TestMode.throughDaemon else {
                _ = copyMatching([kSecClass as String: kSecClassGenericPassword])
                let tpm = try SoftwareTPM()
                return try withExtendedLifetime(tpm) { try tpm.selected { try body(tpm, environment) } }
            }
            let tpm = try SoftwareTPM()
            let daemon = try TPMKeychainDaemon(tpm: tpm)
            defer { daemon.stop() }
            return try withExtendedLifetime(tpm) { try daemon.serving { try tpm.selected { try body(tpm, environment) } } }
        }
    }

    private static let tag = Data("com.example.keys.tpm".utf8)

    /// A permanent, tagged Secure Enclave key.
    private func makeTokenKey(tag: Data = SecureEnclaveKeyTests.tag) throws -> SecKey {
        try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
        ])
    }

    private var tokenKeyQuery: Query {
        [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
         kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]
    }

    @Test("The key is created in the TPM: the keychain stores only its wrapped blob, with the token ID, and never its private key")
    func keyIsCreatedInTheTPM() throws {
        try withTPM { _, _ in
            let key = try makeTokenKey()
            let stored = try #require(attributes(tokenKeyQuery))
            #expect(stored[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
            #expect(number(stored[kSecAttrKeyClass as String])?.intValue == 1)
            #expect(number(stored[kSecAttrKeySizeInBits as String])?.intValue == 256)
            #expect(number(stored[kSecAttrIsExtractable as String])?.boolValue == false)
            let blob = try #require(secret(tokenKeyQuery))
            #expect(blob.starts(with: Data("TPM2KEY1".utf8)))
            // The public point is in the blob's public part; no 32-byte scalar follows it anywhere.
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let point = try #require(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
            #expect(point.count == 65)
            #expect(errorCode { SecKeyCopyExternalRepresentation(key, $0) } == Int(errSecUnimplemented))
            // The same tag without the token ID names a different primary key: a software key can sit beside it.
            let software = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag],
            ])
            #expect(SecKeyCopyExternalRepresentation(software, nil) != nil)
            #expect(count([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag]) == 2)
        }
    }

    @Test("A TPM signature (message and digest variants) verifies with openssl and with SecKeyVerifySignature", .enabled(if: OpenSSLCommand.path != nil))
    func signatureVerifiesWithOpenSSL() throws {
        try withTPM { _, _ in
            let key = try makeTokenKey()
            let message = Data("hello keychain".utf8)
            let signature = try sign(key, .ecdsaSignatureMessageX962SHA256, message)
            let openssl = try OpenSSLCommand()
            try publicKeyPEM(key, openssl: openssl, name: "tpm.pem")
            try openssl.write(message, to: "message")
            try openssl.write(signature, to: "signature")
            try openssl.require("dgst", "-sha256", "-verify", "tpm.pem", "-signature", "signature", "message")
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature) == errSecSuccess)
            #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, Data("other".utf8), signature) == errSecVerifyFailed)

            let digest = try openssl.require("dgst", "-sha256", "-binary", "message")
            let digestSignature = try sign(key, .ecdsaSignatureDigestX962SHA256, digest)
            try openssl.write(digestSignature, to: "digest-signature")
            try openssl.require("dgst", "-sha256", "-verify", "tpm.pem", "-signature", "digest-signature", "message")
            #expect(errorCode { SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA256, Data(count: 31) as CFData, $0) } == Int(errSecParam))
        }
    }

    @Test("ECDH with the TPM key agrees with a software P-256 peer (standard and X9.63 SHA-256)")
    func keyExchangeAgreesWithSoftwarePeer() throws {
        try withTPM { _, _ in
            let key = try makeTokenKey()
            let peer = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
            let keyPublic = try #require(SecKeyCopyPublicKey(key))
            let peerPublic = try #require(SecKeyCopyPublicKey(peer))
            for (algorithm, parameters) in [
                (SecKeyAlgorithm.ecdhKeyExchangeStandard, [String: Any]()),
                (.ecdhKeyExchangeStandardX963SHA256, [kSecKeyKeyExchangeParameterRequestedSize as String: 32,
                                                      kSecKeyKeyExchangeParameterSharedInfo as String: Data("info".utf8)]),
            ] {
                var error: Unmanaged<CFError>?
                let ours = SecKeyCopyKeyExchangeResult(key, algorithm, peerPublic, parameters as CFDictionary, &error) as Data?
                #expect(error == nil)
                let theirs = SecKeyCopyKeyExchangeResult(peer, algorithm, keyPublic, parameters as CFDictionary, nil) as Data?
                #expect(ours != nil && ours == theirs)
                #expect(ours?.count == 32)
            }
        }
    }

    @Test("ECIES: the TPM key decrypts what its public key encrypted in software (cofactor variable-IV and standard)")
    func eciesDecryptsSoftwareCiphertext() throws {
        try withTPM { _, _ in
            let key = try makeTokenKey()
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let plaintext = Data("for the TPM's eyes only".utf8)
            for algorithm in [SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM, .eciesEncryptionStandardX963SHA256AESGCM] {
                let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, nil) as Data?)
                var error: Unmanaged<CFError>?
                let decrypted = SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, &error) as Data?
                #expect(error == nil)
                #expect(decrypted == plaintext)
                var tampered = ciphertext
                tampered[tampered.count - 1] ^= 1
                #expect(errorCode { SecKeyCreateDecryptedData(key, algorithm, tampered as CFData, $0) } == Int(errSecParam))
            }
        }
    }

    @Test("The key found again by tag with its token ID signs, and its private key still cannot be exported")
    func keyFoundAgainByTag() throws {
        try withTPM { _, _ in
            _ = try makeTokenKey()
            let (status, result) = copyMatching(merged(tokenKeyQuery, [kSecReturnRef as String: true]))
            #expect(status == errSecSuccess)
            let found = try #require(result.map { $0 as! SecKey })
            let signature = try sign(found, .ecdsaSignatureMessageX962SHA256, Data("again".utf8))
            let publicKey = try #require(SecKeyCopyPublicKey(found))
            #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, Data("again".utf8), signature) == errSecSuccess)
            #expect(errorCode { SecKeyCopyExternalRepresentation(found, $0) } == Int(errSecUnimplemented))
        }
    }

    @Test("A key blob used with another TPM fails with errSecDecode")
    func blobOnAnotherTPMIsRejected() throws {
        try withTPM { _, _ in
            let key = try makeTokenKey()
            let other = try SoftwareTPM()
            other.selected {
                #expect(errorCode { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("x".utf8) as CFData, $0) } == Int(errSecDecode))
                let peer = SecKeyCopyPublicKey(try! makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256))!
                #expect(errorCode { SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, $0) } == Int(errSecDecode))
            }
            // Back on its own TPM it still works.
            _ = try sign(key, .ecdsaSignatureMessageX962SHA256, Data("x".utf8))
        }
    }

    @Test("The TPM going away gives errSecNotAvailable, never a crash, and nothing stored is lost")
    func vanishedTPMGivesNotAvailable() throws {
        try TemporaryKeychain.run { _ in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let key = try makeTokenKey()
                _ = try sign(key, .ecdsaSignatureMessageX962SHA256, Data("before".utf8))
                tpm.kill()
                #expect(errorCode { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("after".utf8) as CFData, $0) } == Int(errSecNotAvailable))
                let peer = SecKeyCopyPublicKey(try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256))!
                #expect(errorCode { SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peer, [:] as CFDictionary, $0) } == Int(errSecNotAvailable))
                #expect(errorCode {
                    SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                           kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave] as CFDictionary, $0)
                } == Int(errSecNotAvailable))
                #expect(secret(tokenKeyQuery)?.starts(with: Data("TPM2KEY1".utf8)) == true)
            }
        }
    }

    @Test("A TPM that hangs up in the middle of a command gives errSecNotAvailable, never a crash")
    func hangUpMidCommandGivesNotAvailable() throws {
        try withTPM { _, _ in
            let key = try makeTokenKey()
            let server = try HangingUpServer()
            defer { server.stop() }
            SoftwareTPM.withTCTI(server.tcti) {
            for _ in 0..<5 {
                #expect(errorCode { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("x".utf8) as CFData, $0) } == Int(errSecNotAvailable))
                #expect(errorCode {
                    SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                           kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave] as CFDictionary, $0)
                } == Int(errSecNotAvailable))
            }
            }
        }
    }

    @Test("The storage key is the same after the TPM restarts: a stored key signs again")
    func keySurvivesTPMRestart() throws {
        try TemporaryKeychain.run { _ in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let key = try makeTokenKey()
                let publicKey = try #require(SecKeyCopyPublicKey(key))
                try tpm.restart()
                let (status, result) = copyMatching(merged(tokenKeyQuery, [kSecReturnRef as String: true]))
                #expect(status == errSecSuccess)
                let found = try #require(result.map { $0 as! SecKey })
                let signature = try sign(found, .ecdsaSignatureMessageX962SHA256, Data("after restart".utf8))
                #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, Data("after restart".utf8), signature) == errSecSuccess)
            }
        }
    }

    @Test("A key in the token is never synchronizable: SecKeyCreateRandomKey and SecItemUpdate asking for it are errSecParam")
    func tokenKeyIsNeverSynchronizable() throws {
        try withTPM { _, _ in
            let code = errorCode { error in
                SecKeyCreateRandomKey([
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                    kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                    kSecPrivateKeyAttrs as String: [
                        kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag,
                        kSecAttrSynchronizable as String: true,
                    ],
                ] as CFDictionary, error)
            }
            #expect(code == Int(errSecParam))
            #expect(count([kSecClass as String: kSecClassKey, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) == 0)
            let key = try makeTokenKey()
            #expect(update(tokenKeyQuery, [kSecAttrSynchronizable as String: true]) == errSecParam)
            #expect(count(merged(tokenKeyQuery, [kSecAttrSynchronizable as String: true])) == 0)
            _ = try sign(key, .ecdsaSignatureMessageX962SHA256, Data("still here".utf8))
        }
    }

    @Test("A key cannot be imported into the token: SecItemAdd with kSecAttrTokenID and other data is errSecParam")
    func importIntoTokenIsRefused() throws {
        try withTPM { _, _ in
            let software = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
            let item: Query = [
                kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrApplicationTag as String: Self.tag,
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecValueData as String: external(software),
            ]
            #expect(add(item) == errSecParam)
            #expect(add(merged(item, [kSecAttrTokenID as String: "com.example.othertoken"])) == errSecParam)
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
            // The token's own blob is accepted back (it loads on this TPM only).
            _ = try makeTokenKey()
            let blob = try #require(secret(tokenKeyQuery))
            #expect(delete(tokenKeyQuery) == errSecSuccess)
            #expect(add(merged(item, [kSecValueData as String: blob])) == errSecSuccess)
            let found = try #require(copyMatching(merged(tokenKeyQuery, [kSecReturnRef as String: true])).result.map { $0 as! SecKey })
            _ = try sign(found, .ecdsaSignatureMessageX962SHA256, Data("re-added".utf8))
        }
    }

    @Test("A key's token ID cannot be changed by SecItemUpdate: errSecParam, both keys still work")
    func tokenIDCannotBeUpdated() throws {
        try withTPM { _, _ in
            _ = try makeTokenKey()
            let softwareTag = Data("com.example.keys.software".utf8)
            _ = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: softwareTag],
            ])
            let softwareQuery: Query = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: softwareTag]
            #expect(update(softwareQuery, [kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]) == errSecParam)
            #expect(update(tokenKeyQuery, [kSecAttrTokenID as String: "com.example.othertoken"]) == errSecParam)
            let token = try #require(copyMatching(merged(tokenKeyQuery, [kSecReturnRef as String: true])).result.map { $0 as! SecKey })
            let software = try #require(copyMatching(merged(softwareQuery, [kSecReturnRef as String: true])).result.map { $0 as! SecKey })
            _ = try sign(token, .ecdsaSignatureMessageX962SHA256, Data("still".utf8))
            _ = try sign(software, .ecdsaSignatureMessageX962SHA256, Data("still".utf8))
        }
    }

    @Test("The token refuses RSA, other curves and other sizes with errSecParam")
    func otherTypesAreRefused() throws {
        try withTPM { _, _ in
            for (type, bits) in [(kSecAttrKeyTypeRSA, 2048), (kSecAttrKeyTypeECSECPrimeRandom, 384), (kSecAttrKeyTypeECSECPrimeRandom, 128)] {
                let parameters = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
                                  kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave] as CFDictionary
                #expect(errorCode { SecKeyCreateRandomKey(parameters, $0) } == Int(errSecParam))
            }
        }
    }

    @Test("Token keys never appear in a backup: a restore brings back the other items only")
    func tokenKeysAreLeftOutOfBackups() throws {
        try withTPM { _, environment in
            _ = try makeTokenKey()
            #expect(add(merged(genericPassword(), [kSecValueData as String: Data("pw".utf8)])) == errSecSuccess)
            let file = environment.dataHome.appendingPathComponent("backup.kcb").path
            try TestMode.security("backup-keychain", "-P", "backup-pass", "-o", file)
            #expect(delete(genericPassword()) == errSecSuccess)
            try TestMode.security("restore-keychain", "-P", "backup-pass", file)
            #expect(secret(genericPassword()) == Data("pw".utf8))
            #expect(count(tokenKeyQuery) == 0)
        }
    }

    @Test("Without a TPM, kSecAttrTokenIDSecureEnclave stays errSecUnimplemented", .enabled(if: !FileManager.default.fileExists(atPath: "/dev/tpmrm0")))
    func withoutTPMUnimplemented() throws {
        try TemporaryKeychain.run { _ in
            SoftwareTPM.withTCTI("") {
            let parameters = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                              kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave] as CFDictionary
            #expect(errorCode { SecKeyCreateRandomKey(parameters, $0) } == Int(errSecUnimplemented))
            }
        }
    }
}

/// Apple's documented Secure Enclave recipe, compiled unchanged, against the suite's TPM.
extension SecureEnclaveKeyTests {
    @Test("Apple's Secure Enclave recipe runs: P-256 key with .privateKeyUsage, sign, verify, export refused, found again by tag")
    func appleRecipeRuns() throws {
        try withTPM { _, _ in
            let recipe = SecureEnclaveRecipe()
            let privateKey = try recipe.createKey()
            let data = Data("recipe".utf8)
            _ = try recipe.signAndVerify(privateKey, data)
            do {
                _ = try recipe.exportPrivateKey(privateKey)
                Issue.record("the private key's external representation was returned")
            } catch {
                #expect((error as NSError).code == Int(errSecUnimplemented))
            }
            let found = try recipe.retrieveKey()
            let signature = try recipe.signAndVerify(found, data)
            #expect(verifyStatus(SecKeyCopyPublicKey(privateKey)!, .ecdsaSignatureMessageX962SHA256, data, signature) == errSecSuccess)
            let stored = try #require(attributes([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: recipe.tag]))
            #expect(stored[kSecAttrAccessControl as String] != nil)
            #expect(stored[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
        }
    }
}

/// The item-classes guide's enclave key: `.privateKeyUsage` with `.userPresence`, on the suite's TPM.
extension SecureEnclaveKeyTests {
    @Test("The guide's enclave key (.privateKeyUsage | .userPresence): its signatures verify, and found again with kSecUseAuthenticationUIFail it refuses to sign (errSecInteractionNotAllowed)")
    func guideEnclaveKeyAsksBeforeSigning() throws {
        try withPasscodePrompt { pinentry in
            let key = try ItemClassesGuideKeys().makeEnclaveKey()
            #expect(pinentry.prompts == 0)
            let message = Data("enclave".utf8)
            var error: Unmanaged<CFError>?
            let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?
            #expect(error == nil)
            // The key SecKeyCreateRandomKey returned is a reference: the keychain asked for the passcode.
            #expect(pinentry.prompts == 1)
            #expect(verifyStatus(try #require(SecKeyCopyPublicKey(key)), .ecdsaSignatureMessageX962SHA256, message, try #require(signature)) == errSecSuccess)

            let found = try #require(copyMatching([
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.example.enclave.auth".utf8),
                kSecReturnRef as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ]).result.map { $0 as! SecKey })
            var refused: Unmanaged<CFError>?
            #expect(SecKeyCreateSignature(found, .ecdsaSignatureMessageX962SHA256, message as CFData, &refused) == nil)
            #expect(refused?.takeRetainedValue().code == Int(errSecInteractionNotAllowed))
        }
    }
}


/// Token keys whose access control has constraints: made in the keychain's TPM, held by the
/// keychain (in-process, or `keychaind` with the suite's TPM), used only through it.
extension SecureEnclaveKeyTests {
    /// A permanent token key with `.privateKeyUsage | .devicePasscode`, `context` bound to it,
    /// after setting the passcode 2580.
    private func makeHeldTokenKey(context: LAContext) throws -> SecKey {
        #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
        #expect(SecDataProtectionTesting.setPasscode(Data("2580".utf8), old: nil) == errSecSuccess)
        let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .devicePasscode], nil))
        return try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag,
                kSecAttrAccessControl as String: control, kSecUseAuthenticationContext as String: context,
            ] as [String: Any],
        ])
    }

    @Test("A token key with constraints as SecKeyCreateRandomKey returns it signs, decrypts and agrees keys through the keychain: its context asks once, and the results check out in software")
    func heldTokenKeyIsUsedThroughTheKeychain() throws {
        try withTPM { _, environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let key = try makeHeldTokenKey(context: pinentry.context(.pin, pin: "2580"))
            #expect(pinentry.prompts == 0)
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            for message in [Data("one".utf8), Data("two".utf8)] {
                let signature = try sign(key, .ecdsaSignatureMessageX962SHA256, message)
                #expect(verifyStatus(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature) == errSecSuccess)
            }
            let plaintext = Data("for the token".utf8)
            let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, plaintext as CFData, nil) as Data?)
            #expect(SecKeyCreateDecryptedData(key, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, ciphertext as CFData, nil) as Data? == plaintext)
            let peer = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
            let ours = SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, try #require(SecKeyCopyPublicKey(peer)), [:] as CFDictionary, nil) as Data?
            let theirs = SecKeyCopyKeyExchangeResult(peer, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, nil) as Data?
            #expect(ours != nil && ours == theirs)
            #expect(pinentry.prompts == 1)
        }
    }

    @Test("A token key with constraints is stored as the TPM's blob with its token ID and access control; without authentication it refuses every private-key use (errSecInteractionNotAllowed), and its export is errSecUnimplemented without a prompt")
    func heldTokenKeyRefusesWithoutAuthentication() throws {
        try withTPM { _, environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            let generated = try makeHeldTokenKey(context: pinentry.context(.pin, pin: "2580"))
            let stored = try #require(attributes(tokenKeyQuery))
            #expect(stored[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
            #expect(stored[kSecAttrAccessControl as String] != nil)
            #expect(number(stored[kSecAttrIsExtractable as String])?.boolValue == false)
            // The item's data (read with the passcode) is the TPM's wrapped blob, never a private key.
            let blob = try #require(copyMatching(merged(tokenKeyQuery, [
                kSecReturnData as String: true, kSecUseAuthenticationContext as String: pinentry.context(.pin, pin: "2580"),
            ])).result as? Data)
            #expect(blob.starts(with: Data("TPM2KEY1".utf8)))
            #expect(pinentry.prompts == 1)

            let refusing = try #require(copyMatching(merged(tokenKeyQuery, [
                kSecReturnRef as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ])).result.map { $0 as! SecKey })
            let publicKey = try #require(SecKeyCopyPublicKey(refusing))
            #expect(errorCode { SecKeyCreateSignature(refusing, .ecdsaSignatureMessageX962SHA256, Data("x".utf8) as CFData, $0) } == Int(errSecInteractionNotAllowed))
            let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, .eciesEncryptionStandardX963SHA256AESGCM, Data("x".utf8) as CFData, nil) as Data?)
            #expect(errorCode { SecKeyCreateDecryptedData(refusing, .eciesEncryptionStandardX963SHA256AESGCM, ciphertext as CFData, $0) } == Int(errSecInteractionNotAllowed))
            #expect(errorCode { SecKeyCopyKeyExchangeResult(refusing, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, $0) } == Int(errSecInteractionNotAllowed))
            #expect(errorCode { SecKeyCopyExternalRepresentation(refusing, $0) } == Int(errSecUnimplemented))
            #expect(errorCode { SecKeyCopyExternalRepresentation(generated, $0) } == Int(errSecUnimplemented))
            #expect(pinentry.prompts == 1)
        }
    }
}

/// `security export` of token keys, with the suite's TPM.
extension SecureEnclaveKeyTests {
    /// Runs the `security` command built beside this test executable with `tpm` as its TPM and,
    /// through keychaind, the test's daemon; `input` on its standard input.
    private func security(_ tpm: SoftwareTPM, _ arguments: [String], input: String = "", environment extra: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("security-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let streams = ["stdin", "stdout", "stderr"].map { directory.appendingPathComponent($0) }
        try Data(input.utf8).write(to: streams[0])
        for stream in streams.dropFirst() { FileManager.default.createFile(atPath: stream.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: (TestMode.testExecutable as NSString).deletingLastPathComponent + "/security")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment["KEYCHAIN_TPM"] = tpm.tcti
        if TestMode.throughDaemon, let socket = ServiceLocation.namedSocket { environment[ServiceLocation.socketVariable] = socket }
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: streams[0])
        process.standardOutput = try FileHandle(forWritingTo: streams[1])
        process.standardError = try FileHandle(forWritingTo: streams[2])
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: streams[1], encoding: .utf8), try String(contentsOf: streams[2], encoding: .utf8))
    }

    @Test("security export refuses the private key of a token key with errSecUnimplemented (exit 252) and says why, writing nothing")
    func exportRefusesTokenKey() throws {
        try withTPM { tpm, environment in
            _ = try makeTokenKey()
            let file = environment.dataHome.appendingPathComponent("keys.pem").path
            for type in ["privKeys", "allKeys", "all"] {
                let run = try security(tpm, ["export", "-t", type, "-P", "phrase", "-o", file])
                #expect(run.status == 252)
                #expect(run.error == "security: SecKeychainItemExport: Function or operation not implemented.\nsecurity: the private key of a Secure Enclave (TPM) key never leaves the TPM; export its public key with -t pubKeys\n")
                #expect(!FileManager.default.fileExists(atPath: file))
            }
        }
    }

    @Test("security export refuses a token key the keychain holds without asking for the passcode (errSecUnimplemented, exit 252)")
    func exportRefusesHeldTokenKeyWithoutAsking() throws {
        try withTPM { tpm, environment in
            let pinentry = ScriptedPinentry(directory: environment.dataHome)
            _ = try makeHeldTokenKey(context: pinentry.context(.pin, pin: "2580"))
            let prompting = ScriptedPinentry(directory: environment.dataHome)
            let run = try security(tpm, ["export", "-t", "privKeys", "-P", "phrase"], input: "2580\n",
                                   environment: prompting.environment(.pin, pin: "2580").variables)
            #expect(run.status == 252, "\(run.error)")
            #expect(run.error.hasSuffix("security: the private key of a Secure Enclave (TPM) key never leaves the TPM; export its public key with -t pubKeys\n"))
            #expect(run.output.isEmpty)
            #expect(prompting.prompts == 0)
        }
    }
}

/// Token keys that are not stored (CryptoKit's `SecureEnclave.P256` keys are such keys).
extension SecureEnclaveKeyTests {
    @Test("A token key generated without kSecAttrIsPermanent with .privateKeyUsage | .devicePasscode (CryptoKit's SecureEnclave.P256 key) is not stored, and the keychain asks before each signature")
    func ephemeralTokenKeyWithConstraints() throws {
        try withPasscodePrompt { pinentry in
            let control = try Self.passcodeForUse()
            let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: control, kSecAttrApplicationTag as String: Self.tag] as [String: Any],
            ])
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
            #expect(count([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag]) == 0)
            #expect(pinentry.prompts == 0)
            for (round, message) in [Data("ephemeral".utf8), Data("again".utf8)].enumerated() {
                let signature = try sign(key, .ecdsaSignatureMessageX962SHA256, message)
                #expect(verifyStatus(try #require(SecKeyCopyPublicKey(key)), .ecdsaSignatureMessageX962SHA256, message, signature) == errSecSuccess)
                // Each signature asked (no context is bound to the key).
                #expect(pinentry.prompts == round + 1)
            }
            // Its private key never leaves the token.
            var exportError: Unmanaged<CFError>?
            #expect(SecKeyCopyExternalRepresentation(key, &exportError) == nil)
            #expect(exportError?.takeRetainedValue().code == Int(errSecUnimplemented))
        }
    }

    @Test("A token key not stored, made with kSecUseAuthenticationUIFail, refuses to sign without authentication (errSecInteractionNotAllowed) and asks nobody; with its LAContext it signs after one prompt")
    func ephemeralTokenKeyRefusesWithoutInteraction() throws {
        try withPasscodePrompt { pinentry in
            let control = try Self.passcodeForUse()
            let refusing = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                kSecPrivateKeyAttrs as String: [
                    kSecAttrAccessControl as String: control, kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
                ] as [String: Any],
            ])
            let message = Data("x".utf8) as CFData
            #expect(errorCode { SecKeyCreateSignature(refusing, .ecdsaSignatureMessageX962SHA256, message, $0) } == Int(errSecInteractionNotAllowed))
            let publicKey = try #require(SecKeyCopyPublicKey(refusing))
            let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, .eciesEncryptionStandardX963SHA256AESGCM, Data("y".utf8) as CFData, nil) as Data?)
            #expect(errorCode { SecKeyCreateDecryptedData(refusing, .eciesEncryptionStandardX963SHA256AESGCM, ciphertext as CFData, $0) } == Int(errSecInteractionNotAllowed))
            #expect(pinentry.prompts == 0)

            let withContext = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                kSecPrivateKeyAttrs as String: [
                    kSecAttrAccessControl as String: control, kSecUseAuthenticationContext as String: pinentry.context(.pin, pin: "2580"),
                ] as [String: Any],
            ])
            for _ in 0..<2 { _ = try sign(withContext, .ecdsaSignatureMessageX962SHA256, Data("z".utf8)) }
            #expect(pinentry.prompts == 1)
        }
    }

    @Test("Releasing a token key that is not stored forgets it in the keychain: a process making and releasing more such keys than it may hold at once is never refused")
    func releasedEphemeralTokenKeysAreForgotten() throws {
        try withTPM { _, _ in
            let control = try Self.passcodeForUse()
            let parameters: [String: Any] = [
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: control] as [String: Any],
            ]
            // One more than the keychain keeps for one process (`EphemeralHeldKeys.capacityPerOwner`, 256).
            for _ in 0..<257 { _ = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: parameters) }
            var kept: [SecKey] = []
            for _ in 0..<256 { kept.append(try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: parameters)) }
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateRandomKey([
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            ].merging(parameters) { $1 } as CFDictionary, &error) == nil)
            #expect(error?.takeRetainedValue().code == Int(errSecAllocate))
        }
    }
}
