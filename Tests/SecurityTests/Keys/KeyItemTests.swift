import Foundation
import Security
import Testing

@Suite("Key items")
struct KeyItemTests {
    @Test("A permanent generated key is stored; found by tag, type and class, the ref signs")
    func permanentKey() throws {
        try TemporaryKeychain.run { _ in
            let tag = Data("com.example.signing".utf8)
            let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
            ])
            let query: Query = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ]
            let (status, result) = copyMatching(merged(query, [kSecReturnRef as String: true]))
            #expect(status == errSecSuccess)
            let found = try #require(result as? SecKey)
            #expect(found == key)
            let signature = try sign(found, .ecdsaSignatureMessageX962SHA256, Data("x".utf8))
            #expect(verifyStatus(SecKeyCopyPublicKey(key)!, .ecdsaSignatureMessageX962SHA256, Data("x".utf8), signature) == errSecSuccess)

            let stored = try #require(attributes(query))
            let label = try #require(stored[kSecAttrApplicationLabel as String] as? Data)
            let publicBytes = external(SecKeyCopyPublicKey(key)!)
            #expect(label == sha1(publicBytes))
            #expect((stored[kSecAttrKeyType as String] as? NSNumber)?.intValue == 73)
            #expect((stored[kSecAttrKeyClass as String] as? NSNumber)?.intValue == 1)
            #expect((stored[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 256)
            #expect((stored[kSecAttrCanSign as String] as? NSNumber)?.intValue == 1)
            // The public key was not marked permanent, so only the private key is stored.
            #expect(count([kSecClass as String: kSecClassKey]) == 1)
        }
    }

    @Test("A key added by kSecValueRef gets Apple's attributes; the caller's values win; a second add is a duplicate")
    func addByReference() throws {
        try TemporaryKeychain.run { _ in
            let key = try makeKey(kSecAttrKeyTypeRSA, bits: 1024)
            let item: Query = [
                kSecClass as String: kSecClassKey, kSecValueRef as String: key,
                kSecAttrApplicationTag as String: Data("rsa".utf8), kSecAttrLabel as String: "Mine", kSecAttrCanSign as String: false,
            ]
            #expect(add(item) == errSecSuccess)
            #expect(add(item) == errSecDuplicateItem)
            let stored = try #require(attributes([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "Mine"]))
            #expect((stored[kSecAttrCanSign as String] as? NSNumber)?.intValue == 0)
            #expect((stored[kSecAttrKeyType as String] as? NSNumber)?.intValue == 42)
            #expect(stored[kSecAttrApplicationLabel as String] as? Data == sha1(external(SecKeyCopyPublicKey(key)!)))
            // Found by the reference itself (can-flags and permanence are not compared).
            #expect(copyMatching([kSecValueRef as String: key, kSecReturnRef as String: true]).result as? SecKey == key)
            #expect(delete([kSecValueRef as String: key]) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
        }
    }

    @Test("Adding key bytes computes the application label; a key item without kSecAttrKeyType is errSecParam")
    func addByData() throws {
        try TemporaryKeychain.run { _ in
            let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
            let base: Query = [
                kSecClass as String: kSecClassKey, kSecValueData as String: external(key),
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ]
            #expect(add(base) == errSecParam)
            #expect(add(merged(base, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom])) == errSecSuccess)
            let found = copyMatching([
                kSecClass as String: kSecClassKey, kSecAttrApplicationLabel as String: sha1(external(SecKeyCopyPublicKey(key)!)),
                kSecReturnRef as String: true,
            ])
            #expect(found.result as? SecKey == key)
        }
    }

    @Test("kSecAttrIsPermanent at the top level stores both halves; the public key is found by its class")
    func permanentPair() throws {
        try TemporaryKeychain.run { _ in
            let tag = Data("com.example.pair".utf8)
            let key = try makeKey(kSecAttrKeyTypeRSA, bits: 1024, extra: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
            ])
            #expect(count([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]) == 2)
            let publicQuery: Query = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                kSecAttrKeyClass as String: kSecAttrKeyClassPublic, kSecReturnRef as String: true,
            ]
            #expect(copyMatching(publicQuery).result as? SecKey == SecKeyCopyPublicKey(key))
            let failing = errorCode {
                SecKeyCreateRandomKey([
                    kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024,
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                    kSecAttrApplicationLabel as String: SecKeyCopyAttributes(key)![kSecAttrApplicationLabel as String]!,
                ] as CFDictionary, $0)
            }
            #expect(failing == Int(errSecDuplicateItem))  // storage failures fail the generation
        }
    }

    @Test("Private key bytes are not on disk in the clear")
    func noPlaintextKeyOnDisk() throws {
        try TemporaryKeychain.run { environment in
            let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256, extra: [kSecAttrIsPermanent as String: true])
            let representation = external(key)
            let scalar = representation.suffix(32)
            let directory = environment.dataHome.appendingPathComponent("swift-keychain")
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let contents = try Data(contentsOf: directory.appendingPathComponent(name))
                #expect(contents.range(of: scalar) == nil, "\(name)")
            }
        }
    }
}

/// SHA-1 through the keychain's own digest (a certificate's `pkhh` is one): computed here with
/// the openssl command to stay independent of the code under test.
func sha1(_ data: Data) -> Data {
    guard let openssl = try? OpenSSLCommand(), (try? openssl.write(data, to: "in")) != nil,
        let output = try? openssl.require("dgst", "-sha1", "-binary", "in")
    else { return Data() }
    return output
}
