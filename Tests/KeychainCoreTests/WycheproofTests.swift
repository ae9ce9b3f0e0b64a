import Foundation
import Testing

@testable import KeychainCore

/// Project Wycheproof vectors (Tests/TestVectors/wycheproof, Apache-2.0) run through the engine's
/// key operations with Apple's algorithm names: every "valid" case must pass, every "invalid"
/// case must fail with the status Apple uses (errSecVerifyFailed for signatures, errSecParam for
/// decryption and key exchange), "acceptable" cases may go either way.
@Suite("Wycheproof vectors")
struct WycheproofTests {
    private static func groups(_ file: String) throws -> [[String: Any]] {
        try TestVectors.json("wycheproof/\(file)")["testGroups"] as? [[String: Any]] ?? []
    }

    private static func tests(_ group: [String: Any]) -> [[String: Any]] { group["tests"] as? [[String: Any]] ?? [] }

    /// Runs `check` on each case; returns how many cases ran.
    private static func run(_ file: String, _ check: ([String: Any], [String: Any]) throws -> Bool) throws -> Int {
        var count = 0
        for group in try groups(file) {
            for vector in tests(group) {
                let result = vector["result"] as? String ?? "invalid"
                let passed = (try? check(group, vector)) ?? false
                if result == "valid" { #expect(passed, "\(file) tcId \(vector["tcId"] ?? "?")") }
                if result == "invalid" { #expect(!passed, "\(file) tcId \(vector["tcId"] ?? "?")") }
                count += 1
            }
        }
        return count
    }

    private static func verifies(_ key: AsymmetricKey, _ algorithm: String, _ vector: [String: Any]) throws -> Bool {
        do {
            try key.verify(algorithm, Data(hex: vector["msg"] as! String), signature: Data(hex: vector["sig"] as! String))
            return true
        } catch let error as KeychainError {
            #expect(error.code == .verifyFailed, "tcId \(vector["tcId"] ?? "?")")
            return false
        }
    }

    @Test("ECDSA P-256/SHA-256, DER signatures (X9.62): ecdsa_secp256r1_sha256_test.json")
    func ecdsaDER() throws {
        let count = try Self.run("ecdsa_secp256r1_sha256_test.json") { group, vector in
            let point = Data(hex: (group["publicKey"] as! [String: Any])["uncompressed"] as! String)
            let key = try AsymmetricKey(externalRepresentation: point, type: .ellipticCurve, keyClass: .public)
            return try Self.verifies(key, "algid:sign:ECDSA:message-X962:SHA256", vector)
        }
        #expect(count > 400)
    }

    @Test("ECDSA P-256/SHA-256, r‖s signatures (RFC 4754 / IEEE P1363): ecdsa_secp256r1_sha256_p1363_test.json")
    func ecdsaRaw() throws {
        let count = try Self.run("ecdsa_secp256r1_sha256_p1363_test.json") { group, vector in
            let point = Data(hex: (group["publicKey"] as! [String: Any])["uncompressed"] as! String)
            let key = try AsymmetricKey(externalRepresentation: point, type: .ellipticCurve, keyClass: .public)
            return try Self.verifies(key, "algid:sign:ECDSA:message-RFC4754:SHA256", vector)
        }
        #expect(count > 200)
    }

    @Test("RSA-PSS 2048, SHA-256, MGF1-SHA-256, 32-byte salt: rsa_pss_2048_sha256_mgf1_32_test.json")
    func rsaPSS() throws {
        let count = try Self.run("rsa_pss_2048_sha256_mgf1_32_test.json") { group, vector in
            let spki = Data(hex: group["publicKeyDer"] as! String)
            let key = try AsymmetricKey(externalRepresentation: spki, type: .rsa, keyClass: .public)
            return try Self.verifies(key, "algid:sign:RSA:message-PSS:SHA256:SHA256:32", vector)
        }
        #expect(count > 100)
    }

    @Test("RSA-OAEP 2048, SHA-256, MGF1-SHA-256 (empty labels; Apple has no label parameter): rsa_oaep_2048_sha256_mgf1sha256_test.json")
    func rsaOAEP() throws {
        var labelled = 0
        let count = try Self.run("rsa_oaep_2048_sha256_mgf1sha256_test.json") { group, vector in
            guard (vector["label"] as? String ?? "").isEmpty else {
                labelled += 1
                return vector["result"] as? String != "invalid"  // not applicable: counted, not judged
            }
            let pkcs8 = Data(hex: group["privateKeyPkcs8"] as! String)
            let key = try AsymmetricKey.importing(pkcs8, passphrase: nil)
            do {
                let plaintext = try key.decrypt("algid:encrypt:RSA:OAEP:SHA256", Data(hex: vector["ct"] as! String))
                return plaintext.withUnsafeBytes { Data($0) } == Data(hex: vector["msg"] as! String)
            } catch let error as KeychainError {
                #expect(error.code == .param)
                return false
            }
        }
        #expect(count > 30)
        #expect(labelled < count)
    }

    @Test("ECDH P-256 with uncompressed points: ecdh_secp256r1_ecpoint_test.json")
    func ecdh() throws {
        let count = try Self.run("ecdh_secp256r1_ecpoint_test.json") { _, vector in
            var scalar = Data(hex: vector["private"] as! String)
            while scalar.count > 32, scalar.first == 0 { scalar.removeFirst() }
            let own = try AsymmetricKey(ecPrivateScalar: scalar, curve: .p256)
            let peer = try AsymmetricKey(
                externalRepresentation: Data(hex: vector["public"] as! String), type: .ellipticCurve, keyClass: .public)
            let shared = try own.keyExchange("algid:keyexchange:ECDH", peer: peer, parameters: .init())
            return shared.withUnsafeBytes { Data($0) } == Data(hex: vector["shared"] as! String)
        }
        #expect(count > 300)
    }
}

/// Ciphertexts Apple's `SecKeyCreateEncryptedData` produced (Tests/TestVectors/apple-ecies.json):
/// decrypting them proves the ECIES layout is Apple's, byte for byte.
@Suite("Apple ECIES ciphertexts")
struct AppleECIESTests {
    @Test("Ciphertexts made on Apple platforms decrypt to their plaintexts (P-256, P-384, P-521; fixed and variable IV)")
    func appleCiphertexts() throws {
        let cases = try TestVectors.json("apple-ecies.json")["cases"] as? [[String: String]] ?? []
        #expect(cases.count == 7)
        for vector in cases {
            let keyDER = try #require(Data(base64Encoded: vector["key"]!))
            let key = try AsymmetricKey.importing(keyDER, passphrase: nil)
            let ciphertext = try #require(Data(base64Encoded: vector["ciphertext"]!))
            let plaintext = try key.decrypt(vector["algorithm"]!, ciphertext)
            #expect(plaintext.withUnsafeBytes { Data($0) } == Data(vector["name"]!.utf8), "\(vector["name"]!)")
            // The standard (non-cofactor) name decrypts the same on these curves (cofactor 1).
            let standard = vector["algorithm"]!.replacingOccurrences(of: "ECDHC", with: "ECDH")
            #expect(try key.decrypt(standard, ciphertext).count == vector["name"]!.utf8.count)
        }
    }
}
