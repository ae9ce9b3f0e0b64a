import Foundation
import KeychainCrypto
import Testing

@testable import KeychainCore

@Suite("OpenSSL wrappers reproduce published test vectors")
struct CryptoVectorTests {
    let vectors: [String: Any]

    init() throws { vectors = try TestVectors.json("crypto.json") }

    private func cases(_ name: String) -> [[String: Any]] { vectors[name] as? [[String: Any]] ?? [] }

    @Test("HKDF-SHA256 matches RFC 5869")
    func hkdf() throws {
        #expect(!cases("hkdf_sha256").isEmpty)
        for vector in cases("hkdf_sha256") {
            let ikm = Data(hex: vector["ikm"] as! String)
            let output = try ikm.withUnsafeBytes { key in
                try OpenSSL.hkdfSHA256(
                    key: key, salt: Array(Data(hex: vector["salt"] as! String)),
                    info: Array(Data(hex: vector["info"] as! String)), length: vector["length"] as! Int)
            }
            let bytes = output.withUnsafeBytes { Data($0) }
            #expect(bytes.hex == vector["okm"] as! String, "\(vector["origin"]!)")
        }
    }

    @Test("HMAC-SHA256 matches RFC 4231")
    func hmac() throws {
        #expect(cases("hmac_sha256").count >= 3)
        for vector in cases("hmac_sha256") {
            let key = Data(hex: vector["key"] as! String)
            let data = Data(hex: vector["data"] as! String)
            let mac = try key.withUnsafeBytes { k in try data.withUnsafeBytes { try OpenSSL.hmacSHA256(key: k, message: $0) } }
            #expect(mac.hex == vector["mac"] as! String, "\(vector["origin"]!)")
            if key.count == 32 {  // keychain keys: the precomputed HMAC path of SymmetricKey
                #expect(try SymmetricKey(SecureBytes(copying: key)).authenticationCode(for: data).hex == vector["mac"] as! String)
            }
        }
    }

    @Test("AES-256-GCM seals and opens the GCM specification's test cases")
    func aesGCM() throws {
        #expect(cases("aes_256_gcm").count >= 2)
        for vector in cases("aes_256_gcm") {
            let key = Data(hex: vector["key"] as! String)
            let iv = Data(hex: vector["iv"] as! String)
            let aad = Data(hex: vector["aad"] as! String)
            let plaintext = Data(hex: vector["plaintext"] as! String)
            let expected = Data(hex: vector["ciphertext"] as! String) + Data(hex: vector["tag"] as! String)
            let symmetric = try SymmetricKey(SecureBytes(copying: key))
            let box = try symmetric.seal(plaintext, aad: aad, nonce: iv)
            #expect(box == iv + expected, "\(vector["origin"]!)")
            // A second use of the key reuses its prepared cipher context with the new nonce.
            #expect(try symmetric.seal(plaintext, aad: aad, nonce: iv) == box)
            let opened = try symmetric.open(box, aad: aad)
            #expect(opened.withUnsafeBytes { Data($0) } == plaintext)
            let once = try box.withUnsafeBytes { try SymmetricKey.openOnce($0, key: SecureBytes(copying: key), aad: aad) }
            #expect(once.withUnsafeBytes { Data($0) } == plaintext)
        }
    }

    @Test("AES-256-GCM rejects any altered byte and the wrong associated data")
    func aesGCMAuthentication() throws {
        let key = try SymmetricKey.random()
        let box = try key.seal(Data("secret value".utf8), aad: Data("identity".utf8))
        #expect(throws: KeychainError.self) { try key.open(box, aad: Data("other".utf8)) }
        for index in box.indices {
            var altered = box
            altered[index] ^= 0x01
            #expect(throws: KeychainError.self) { try key.open(altered, aad: Data("identity".utf8)) }
        }
        #expect(throws: KeychainError.self) { try key.open(box.prefix(10), aad: Data()) }
    }

    @Test("SHA-1 matches FIPS 180-2")
    func sha1() throws {
        for vector in cases("sha1") {
            #expect(try Digest.sha1(Data(hex: vector["message"] as! String)).hex == vector["digest"] as! String)
        }
    }

    @Test("Two random keys differ and have 32 bytes")
    func randomKeys() throws {
        let first = try SymmetricKey.random()
        let second = try SymmetricKey.random()
        #expect(first.bytes.count == 32)
        let a = first.bytes.withUnsafeBytes { Data($0) }
        let b = second.bytes.withUnsafeBytes { Data($0) }
        #expect(a != b)
    }

    @Test("PBKDF2-HMAC-SHA256 matches RFC 7914")
    func pbkdf2() throws {
        #expect(cases("pbkdf2_hmac_sha256").count == 2)
        for vector in cases("pbkdf2_hmac_sha256") {
            let password = Data(hex: vector["password"] as! String)
            let salt = Data(hex: vector["salt"] as! String)
            let derived = try password.withUnsafeBytes { p in
                try salt.withUnsafeBytes {
                    try OpenSSL.pbkdf2SHA256(password: p, salt: $0, iterations: vector["iterations"] as! Int, length: 64)
                }
            }
            #expect(derived.withUnsafeBytes { Data($0) }.hex == vector["derived"] as! String, "\(vector["origin"]!)")
        }
    }

    @Test("scrypt matches RFC 7914")
    func scrypt() throws {
        #expect(cases("scrypt").count == 2)
        for vector in cases("scrypt") {
            let password = Data(hex: vector["password"] as! String)
            let salt = Data(hex: vector["salt"] as! String)
            let derived = try password.withUnsafeBytes { p in
                try salt.withUnsafeBytes {
                    try OpenSSL.scrypt(
                        password: p, salt: $0, log2N: vector["log2N"] as! Int, r: vector["r"] as! Int, p: vector["p"] as! Int,
                        length: 64)
                }
            }
            #expect(derived.withUnsafeBytes { Data($0) }.hex == vector["derived"] as! String, "\(vector["origin"]!)")
        }
    }
}
