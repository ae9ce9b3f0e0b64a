import Foundation
import KeychainCrypto
import Testing

@testable import KeychainCore

/// OpenSSL's failures leave the crypto module as `OpenSSLError` and become the engine's errors
/// once, where the engine calls the module: each kind keeps the code the engine gave the same
/// failure when the wrappers threw its errors themselves.
@Suite("OpenSSL failures as engine errors")
struct OpenSSLErrorTests {
    /// What `body` throws, as the crypto module's error.
    private static func failure(_ body: () throws -> Void) -> OpenSSLError? {
        do {
            try body()
            return nil
        } catch {
            return error as? OpenSSLError
        }
    }

    /// What `body` throws, as the engine's error (nil for any other error, such as an `OpenSSLError`).
    private static func engineFailure(_ body: () throws -> Void) -> KeychainError? {
        do {
            try body()
            return nil
        } catch {
            return error as? KeychainError
        }
    }

    @Test("Each failure the crypto module reports becomes the engine code the engine gave it before")
    func kindsBecomeEngineCodes() throws {
        let key = Data(repeating: 1, count: 32)
        let nonce = Data(repeating: 2, count: 12)
        let sealed = try key.withUnsafeBytes { key in
            try nonce.withUnsafeBytes { nonce in
                try Data("secret".utf8).withUnsafeBytes {
                    try AESGCMCipher.seal(key: key, nonce: nonce, plaintext: $0, aad: UnsafeRawBufferPointer(start: nil, count: 0))
                }
            }
        }
        var tampered = sealed
        tampered[0] ^= 1
        let notAuthentic = Self.failure {
            _ = try key.withUnsafeBytes { key in
                try nonce.withUnsafeBytes { nonce in
                    try tampered.withUnsafeBytes {
                        try AESGCMCipher.open(key: key, nonce: nonce, sealed: $0, aad: UnsafeRawBufferPointer(start: nil, count: 0))
                    }
                }
            }
        }
        #expect(notAuthentic?.kind == .authenticationFailed)
        #expect(notAuthentic?.keychainError.code == .decode)

        let malformed = Self.failure { _ = try Data("not a certificate".utf8).withUnsafeBytes { try X509Certificate(der: $0) } }
        #expect(malformed?.kind == .malformedInput)
        #expect(malformed?.keychainError.code == .decode)

        let badParameter = Self.failure { _ = try Data(count: 15).withUnsafeBytes { try AESGCMCipher(key: $0) } }
        #expect(badParameter?.kind == .badParameter)
        #expect(badParameter?.keychainError.code == .param)

        let archive = try PKCS12Archive.create(
            key: EVPKey.generateEC(group: "prime256v1"), certificate: nil, chain: [], password: "right", friendlyName: nil)
        let wrongPassword = Self.failure { _ = try archive.withUnsafeBytes { try PKCS12Archive(der: $0) }.open(password: "wrong") }
        #expect(wrongPassword?.kind == .wrongPassword)
        #expect(wrongPassword?.keychainError.code == .authFailed)

        let internalFailure = Self.failure { _ = try Data().withUnsafeBytes { try OpenSSL.digest("no-such-digest", $0) } }
        #expect(internalFailure?.kind == .internalFailure)
        #expect(internalFailure?.keychainError.code == .internal)
        #expect(internalFailure?.keychainError.reason.hasPrefix("EVP_get_digestbyname failed") == true)
    }

    @Test("The engine's crypto types throw the engine's error, never the crypto module's")
    func engineTypesConvertAtTheBoundary() throws {
        #expect(Self.engineFailure { _ = try Certificate(der: Data("not a certificate".utf8)) }?.code == .decode)
        #expect(Self.engineFailure { _ = try PKCS12File(data: Data("not a PKCS#12 file".utf8), password: "") }?.code == .decode)
        let archive = try PKCS12Archive.create(
            key: EVPKey.generateEC(group: "prime256v1"), certificate: nil, chain: [], password: "right", friendlyName: nil)
        #expect(Self.engineFailure { _ = try PKCS12File(data: archive, password: "wrong") }?.code == .authFailed)
        let key = try SymmetricKey.random()
        var box = try key.seal(Data("value".utf8), aad: Data())
        box[box.count - 1] ^= 1
        #expect(Self.engineFailure { _ = try key.open(box, aad: Data()) }?.code == .decode)
        // A point that is not on the curve: OpenSSL refuses it as malformed, and the engine's
        // rule for key data (errSecParam) applies only once that refusal is the engine's error.
        let offCurve = Data([0x04] + [UInt8](repeating: 0x01, count: 64))
        #expect(Self.engineFailure {
            _ = try AsymmetricKey(externalRepresentation: offCurve, type: .ellipticCurve, keyClass: .public)
        }?.code == .param)
        #expect(Self.engineFailure { _ = try AsymmetricKey.importing(Data("not a key".utf8), passphrase: nil) }?.code == .unknownFormat)
    }
}
