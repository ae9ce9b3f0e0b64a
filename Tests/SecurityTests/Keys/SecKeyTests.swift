import Foundation
import Security
import Testing

@Suite("SecKey")
struct SecKeyTests {
    static let curves = [256, 384, 521]

    @Test("SecKeyCreateRandomKey makes EC keys of each NIST size with Apple's external representation sizes", arguments: [192, 224, 256, 384, 521])
    func ecGeneration(bits: Int) throws {
        let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let field = (bits + 7) / 8
        #expect(external(key).count == 1 + 3 * field)
        #expect(external(SecKeyCopyPublicKey(key)!).count == 1 + 2 * field)
        #expect(SecKeyGetBlockSize(key) == field)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == "73")
        #expect(attributes[kSecAttrKeyClass as String] as? String == "1")
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == bits)
        #expect(attributes[kSecAttrCanSign as String] as? NSNumber == kCFBooleanTrue)
    }

    @Test("SecKeyCreateRandomKey makes RSA keys; the block size is the modulus length", arguments: [1024, 2048])
    func rsaGeneration(bits: Int) throws {
        let key = try makeKey(kSecAttrKeyTypeRSA, bits: bits)
        #expect(SecKeyGetBlockSize(key) == bits / 8)
        let restored = SecKeyCreateWithData(external(key) as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ] as CFDictionary, nil)
        #expect(restored == key)
    }

    @Test("Generation errors: missing or unknown type and missing size are errSecParam, a bad size errSecKeySizeNotAllowed")
    func generationErrors() {
        func status(_ parameters: [String: Any]) -> Int? {
            errorCode { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }
        }
        #expect(status([kSecAttrKeySizeInBits as String: 256]) == Int(errSecParam))
        #expect(status([kSecAttrKeyType as String: "9999", kSecAttrKeySizeInBits as String: 256]) == Int(errSecParam))
        #expect(status([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom]) == Int(errSecParam))
        #expect(status([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 255]) == Int(errSecKeySizeNotAllowed))
        #expect(status([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 100]) == Int(errSecKeySizeNotAllowed))
        #expect(status([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 16384]) == Int(errSecKeySizeNotAllowed))
        #expect(status([
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecPrivateKeyAttrs as String: [kSecAttrKeySizeInBits as String: "384"],
        ]) == nil)
    }

    @Test("SecKeyGeneratePair returns both halves, and the public half equals SecKeyCopyPublicKey")
    func generatePair() {
        var publicKey: SecKey?
        var privateKey: SecKey?
        let status = SecKeyGeneratePair([
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256,
        ] as CFDictionary, &publicKey, &privateKey)
        #expect(status == errSecSuccess)
        #expect(publicKey != nil && publicKey == SecKeyCopyPublicKey(privateKey!))
        #expect(SecKeyGeneratePair([:] as CFDictionary, nil, nil) == errSecParam)
    }

    @Test("ECDSA message and digest algorithms sign and verify; X9.62 is DER, RFC 4754 is r‖s", arguments: curves)
    func ecdsaRoundTrip(bits: Int) throws {
        let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let message = Data("attack at dawn".utf8)
        for algorithm in [SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256, .ecdsaSignatureMessageX962SHA384, .ecdsaSignatureMessageX962SHA512, .ecdsaSignatureMessageX962SHA1] {
            let signature = try sign(key, algorithm, message)
            #expect(signature.first == 0x30)
            #expect(verifyStatus(publicKey, algorithm, message, signature) == errSecSuccess)
            #expect(verifyStatus(publicKey, algorithm, Data("attack at dusk".utf8), signature) == errSecVerifyFailed)
        }
        let raw = try sign(key, .ecdsaSignatureMessageRFC4754SHA256, message)
        #expect(raw.count == 2 * SecKeyGetBlockSize(key))
        #expect(verifyStatus(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, raw) == errSecSuccess)
        #expect(verifyStatus(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, raw.dropLast()) == errSecVerifyFailed)
        let digest = Data(repeating: 7, count: 32)
        let digestSignature = try sign(key, .ecdsaSignatureDigestX962SHA256, digest)
        #expect(verifyStatus(publicKey, .ecdsaSignatureDigestX962, digest, digestSignature) == errSecSuccess)
        #expect(verifyStatus(publicKey, .ecdsaSignatureRFC4754, digest, try sign(key, .ecdsaSignatureRFC4754, digest)) == errSecSuccess)
        #expect(errorCode { SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA256, Data(count: 31) as CFData, $0) } == Int(errSecParam))
    }

    @Test("RSA PKCS#1 v1.5 and PSS sign and verify; raw signatures recover their input")
    func rsaSignatures() throws {
        let key = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let message = Data("hello".utf8)
        let algorithms: [SecKeyAlgorithm] = [
            .rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureMessagePKCS1v15SHA1, .rsaSignatureMessagePKCS1v15SHA512,
            .rsaSignatureMessagePSSSHA256, .rsaSignatureMessagePSSSHA384, .rsaSignatureMessagePSSSHA224,
        ]
        for algorithm in algorithms {
            let signature = try sign(key, algorithm, message)
            #expect(signature.count == 256)
            #expect(verifyStatus(publicKey, algorithm, message, signature) == errSecSuccess)
            var tampered = signature
            tampered[10] ^= 1
            #expect(verifyStatus(publicKey, algorithm, message, tampered) == errSecVerifyFailed)
        }
        let digest = Data(repeating: 1, count: 20)
        let rawDigest = try sign(key, .rsaSignatureDigestPKCS1v15Raw, digest)
        #expect(verifyStatus(publicKey, .rsaSignatureDigestPKCS1v15Raw, digest, rawDigest) == errSecSuccess)
        let rawSignature = try sign(key, .rsaSignatureRaw, Data([1, 2, 3]))
        #expect(verifyStatus(publicKey, .rsaSignatureRaw, Data([1, 2, 3]), rawSignature) == errSecSuccess)
        #expect(errorCode { SecKeyCreateSignature(key, .rsaSignatureDigestPKCS1v15SHA256, Data(count: 20) as CFData, $0) } == Int(errSecParam))
    }

    @Test("An algorithm the key does not support is errSecParam, and SecKeyIsAlgorithmSupported says so")
    func unsupportedAlgorithms() throws {
        let ec = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try makeKey(kSecAttrKeyTypeRSA, bits: 1024)
        let ecPublic = SecKeyCopyPublicKey(ec)!
        #expect(SecKeyIsAlgorithmSupported(ec, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(ecPublic, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(SecKeyIsAlgorithmSupported(ecPublic, .verify, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(ec, .sign, .rsaSignatureMessagePKCS1v15SHA256))
        #expect(!SecKeyIsAlgorithmSupported(rsa, .encrypt, .rsaEncryptionOAEPSHA256))
        #expect(SecKeyIsAlgorithmSupported(SecKeyCopyPublicKey(rsa)!, .encrypt, .rsaEncryptionOAEPSHA256))
        #expect(!SecKeyIsAlgorithmSupported(SecKeyCopyPublicKey(rsa)!, .encrypt, .rsaEncryptionOAEPSHA512))  // 128 < 2·64+2
        #expect(SecKeyIsAlgorithmSupported(ec, .keyExchange, .ecdhKeyExchangeStandard))
        #expect(errorCode { SecKeyCreateSignature(ecPublic, .ecdsaSignatureMessageX962SHA256, Data() as CFData, $0) } == Int(errSecParam))
        #expect(errorCode { SecKeyCreateSignature(ec, SecKeyAlgorithm(rawValue: "algid:nonsense" as CFString), Data() as CFData, $0) } == Int(errSecParam))
        #expect(errorCode { SecKeyCreateEncryptedData(ec, .eciesEncryptionStandardX963SHA256AESGCM, Data() as CFData, $0) } == Int(errSecParam))
    }

    @Test("RSA encryption round-trips with PKCS#1, OAEP and OAEP-AESGCM; a tampered ciphertext is errSecParam")
    func rsaEncryption() throws {
        let key = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = SecKeyCopyPublicKey(key)!
        let plaintext = Data("the plans".utf8)
        let algorithms: [SecKeyAlgorithm] = [
            .rsaEncryptionPKCS1, .rsaEncryptionOAEPSHA1, .rsaEncryptionOAEPSHA256, .rsaEncryptionOAEPSHA512,
            .rsaEncryptionOAEPSHA256AESGCM, .rsaEncryptionOAEPSHA1AESGCM,
        ]
        for algorithm in algorithms {
            var error: Unmanaged<CFError>?
            let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, &error) as Data?)
            let opened = SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, &error) as Data?
            #expect(opened == plaintext)
            var tampered = ciphertext
            tampered[tampered.count - 1] ^= 1
            #expect(errorCode { SecKeyCreateDecryptedData(key, algorithm, tampered as CFData, $0) } == Int(errSecParam))
        }
        let layout = SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256AESGCM, plaintext as CFData, nil)! as Data
        #expect(layout.count == 256 + plaintext.count + 16)
        #expect(errorCode { SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data(count: 250) as CFData, $0) } == Int(errSecParam))
    }

    @Test("ECIES round-trips for every variant; output is ephemeral key ‖ ciphertext ‖ tag", arguments: curves)
    func ecies(bits: Int) throws {
        let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let publicKey = SecKeyCopyPublicKey(key)!
        let plaintext = Data("meet me at the bridge".utf8)
        let variants = SecKeyAlgorithm.allAlgorithms.filter { String($0.rawValue).hasPrefix("algid:encrypt:ECIES") }
        #expect(variants.count == 18)
        for algorithm in variants {
            let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, nil) as Data?)
            #expect(ciphertext.count == 1 + 2 * SecKeyGetBlockSize(key) + plaintext.count + 16)
            #expect(SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, nil) as Data? == plaintext)
        }
        #expect(errorCode { SecKeyCreateDecryptedData(key, .eciesEncryptionStandardX963SHA256AESGCM, Data([4, 1]) as CFData, $0) } == Int(errSecParam))
    }

    @Test("ECDH: both sides derive the same secret, raw and through the X9.63 KDF; the KDF needs requestedSize")
    func keyExchange() throws {
        let alice = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let bob = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        func exchange(_ own: SecKey, _ peer: SecKey, _ algorithm: SecKeyAlgorithm, _ parameters: [String: Any]) -> Data? {
            SecKeyCopyKeyExchangeResult(own, algorithm, SecKeyCopyPublicKey(peer)!, parameters as CFDictionary, nil) as Data?
        }
        let raw = exchange(alice, bob, .ecdhKeyExchangeStandard, [:])
        #expect(raw?.count == 32 && raw == exchange(bob, alice, .ecdhKeyExchangeCofactor, [:]))
        let parameters: [String: Any] = [
            kSecKeyKeyExchangeParameterRequestedSize as String: 48,
            kSecKeyKeyExchangeParameterSharedInfo as String: Data("context".utf8),
        ]
        let derived = exchange(alice, bob, .ecdhKeyExchangeStandardX963SHA256, parameters)
        #expect(derived?.count == 48 && derived == exchange(bob, alice, .ecdhKeyExchangeStandardX963SHA256, parameters))
        #expect(errorCode {
            SecKeyCopyKeyExchangeResult(alice, .ecdhKeyExchangeStandardX963SHA256, SecKeyCopyPublicKey(bob)!, [:] as CFDictionary, $0)
        } == Int(errSecParam))
        let other = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        #expect(errorCode {
            SecKeyCopyKeyExchangeResult(alice, .ecdhKeyExchangeStandard, SecKeyCopyPublicKey(other)!, [:] as CFDictionary, $0)
        } == Int(errSecParam))
    }

    @Test("SecKeyCreateWithData: X9.63 for EC, PKCS#1 and SubjectPublicKeyInfo for RSA; garbage is errSecParam")
    func createWithData() throws {
        let ec = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let ecPublic = external(SecKeyCopyPublicKey(ec)!)
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        #expect(SecKeyCreateWithData(ecPublic as CFData, attributes as CFDictionary, nil) == SecKeyCopyPublicKey(ec))
        var offCurve = ecPublic
        offCurve[offCurve.count - 1] ^= 1
        #expect(errorCode { SecKeyCreateWithData(offCurve as CFData, attributes as CFDictionary, $0) } == Int(errSecParam))
        #expect(errorCode { SecKeyCreateWithData(Data([1, 2, 3]) as CFData, attributes as CFDictionary, $0) } == Int(errSecParam))
        #expect(errorCode { SecKeyCreateWithData(ecPublic as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeEC] as CFDictionary, $0) } == Int(errSecParam))
        #expect(errorCode {
            SecKeyCreateWithData(Data(count: 16) as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric] as CFDictionary, $0)
        } == Int(errSecUnimplemented))

        let openssl = try OpenSSLCommand()
        try openssl.require("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem")
        let spki = try openssl.require("pkey", "-in", "rsa.pem", "-pubout", "-outform", "DER")
        let pkcs1 = try openssl.require("rsa", "-in", "rsa.pem", "-RSAPublicKey_out", "-outform", "DER")
        let rsaAttributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        let fromSPKI = try #require(SecKeyCreateWithData(spki as CFData, rsaAttributes as CFDictionary, nil))
        #expect(external(fromSPKI) == pkcs1)
        #expect(SecKeyCreateWithData(pkcs1 as CFData, rsaAttributes as CFDictionary, nil) == fromSPKI)
    }

    @Test("Every SecKeyAlgorithm constant has Apple's string value, and the engine knows each one")
    func algorithmConstants() throws {
        #expect(SecKeyAlgorithm.allAlgorithms.count == 89)
        #expect(Set(SecKeyAlgorithm.allAlgorithms.map { String($0.rawValue) }).count == 89)
        #expect(SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue == "algid:sign:ECDSA:message-X962:SHA256" as CFString)
        #expect(kSecKeyAlgorithmRSASignatureDigestPSSSHA224.rawValue == "algid:sign:RSA:digest-PSS:SHA224:SHA224:24" as CFString)
        #expect(SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM.rawValue == "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV" as CFString)
        #expect(SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1.rawValue == "algid:keyexchange:ECDH:KDFX963:SHA1" as CFString)
        let ec = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
        let keys = [ec, SecKeyCopyPublicKey(ec)!, rsa, SecKeyCopyPublicKey(rsa)!]
        let operations: [SecKeyOperationType] = [.sign, .verify, .encrypt, .decrypt, .keyExchange]
        for algorithm in SecKeyAlgorithm.allAlgorithms {
            let supported = keys.contains { key in operations.contains { SecKeyIsAlgorithmSupported(key, $0, algorithm) } }
            #expect(supported, "\(algorithm.rawValue)")
        }
    }

    @Test("Keys compare by value: a key rebuilt from its data equals the original; errors name no key bytes")
    func equalityAndErrors() throws {
        let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let copy = SecKeyCreateWithData(external(key) as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ] as CFDictionary, nil)
        #expect(copy == key)
        #expect(Set([key, copy!]).count == 1)
        #expect(!String(describing: key).contains(external(key).hex))
        var error: Unmanaged<CFError>?
        _ = SecKeyVerifySignature(SecKeyCopyPublicKey(key)!, .ecdsaSignatureMessageX962SHA256, Data() as CFData, Data([0x30, 0]) as CFData, &error)
        let failure = try #require(error?.takeRetainedValue())
        #expect(failure.code == Int(errSecVerifyFailed))
        #expect(!failure.description.contains(external(key).hex))
    }
}
