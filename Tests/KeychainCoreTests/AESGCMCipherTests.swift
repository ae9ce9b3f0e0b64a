import Foundation
import KeychainCrypto
import Testing

@testable import KeychainCore

/// The keychain's one AES-GCM type: its two layouts (the keychain's `nonce ‖ ciphertext ‖ tag`
/// boxes under 256-bit keys, Apple's 16-byte-nonce layouts under 128- and 256-bit keys) share
/// one set of rules for what is refused and with which status.
@Suite("AES-GCM cipher")
struct AESGCMCipherTests {
    /// A key length and nonce length the keychain uses: its own boxes, and Apple's ECIES and
    /// RSA-OAEP-AESGCM layouts.
    static let layouts: [(key: Int, nonce: Int)] = [(32, 12), (16, 16), (32, 16)]

    private static func bytes(_ count: Int, _ seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    /// The engine's code for what `body` throws (the cipher's `OpenSSLError` as the engine
    /// converts it at its boundary), or nil when it returns.
    private static func failure(_ body: () throws -> Void) -> KeychainError.Code? {
        do {
            try body()
            return nil
        } catch let error as KeychainError {
            return error.code
        } catch let error as OpenSSLError {
            return error.keychainError.code
        } catch {
            return .internal
        }
    }

    private static func open(_ key: Data, _ nonce: Data, _ sealed: Data, _ aad: Data) throws -> Data {
        try key.withUnsafeBytes { key in
            try nonce.withUnsafeBytes { nonce in
                try sealed.withUnsafeBytes { sealed in
                    try aad.withUnsafeBytes { aad in
                        try AESGCMCipher.open(key: key, nonce: nonce, sealed: sealed, aad: aad).withUnsafeBytes { Data($0) }
                    }
                }
            }
        }
    }

    private static func seal(_ key: Data, _ nonce: Data, _ plaintext: Data, _ aad: Data) throws -> Data {
        try key.withUnsafeBytes { key in
            try nonce.withUnsafeBytes { nonce in
                try plaintext.withUnsafeBytes { plaintext in
                    try aad.withUnsafeBytes { try AESGCMCipher.seal(key: key, nonce: nonce, plaintext: plaintext, aad: $0) }
                }
            }
        }
    }

    @Test("A wrong tag, ciphertext, nonce or associated data, or input shorter than a tag, is errSecDecode")
    func refusesWhatDoesNotAuthenticate() throws {
        for layout in Self.layouts {
            let key = Self.bytes(layout.key, 1)
            let nonce = Self.bytes(layout.nonce, 2)
            let aad = Data("row identity".utf8)
            let plaintext = Data("a secret worth keeping".utf8)
            let sealed = try Self.seal(key, nonce, plaintext, aad)
            #expect(sealed.count == plaintext.count + AESGCMCipher.tagLength)
            #expect(try Self.open(key, nonce, sealed, aad) == plaintext)
            for index in sealed.indices {
                var altered = sealed
                altered[index] ^= 0x80
                #expect(Self.failure { _ = try Self.open(key, nonce, altered, aad) } == .decode, "byte \(index) of \(layout)")
            }
            var otherNonce = nonce
            otherNonce[0] ^= 1
            #expect(Self.failure { _ = try Self.open(key, otherNonce, sealed, aad) } == .decode)
            #expect(Self.failure { _ = try Self.open(key, nonce, sealed, Data("another row".utf8)) } == .decode)
            #expect(Self.failure { _ = try Self.open(key, nonce, sealed, Data()) } == .decode)
            #expect(Self.failure { _ = try Self.open(Self.bytes(layout.key, 9), nonce, sealed, aad) } == .decode)
            #expect(Self.failure { _ = try Self.open(key, nonce, sealed.prefix(AESGCMCipher.tagLength - 1), aad) } == .decode)
            #expect(Self.failure { _ = try Self.open(key, nonce, Data(), aad) } == .decode)
            // A tag alone is the sealing of an empty plaintext, and opens only as that.
            let empty = try Self.seal(key, nonce, Data(), aad)
            #expect(try Self.open(key, nonce, empty, aad) == Data())
            #expect(Self.failure { _ = try Self.open(key, nonce, sealed.suffix(AESGCMCipher.tagLength), aad) } == .decode)
        }
    }

    @Test("A keychain box shorter than a nonce and a tag, or altered anywhere, is errSecDecode")
    func refusesDamagedBoxes() throws {
        let key = try SymmetricKey.random()
        let box = try key.seal(Data("value".utf8), aad: Data("aad".utf8))
        #expect(box.count == AESGCMCipher.nonceLength + 5 + AESGCMCipher.tagLength)
        for length in [0, AESGCMCipher.nonceLength, AESGCMCipher.nonceLength + AESGCMCipher.tagLength - 1] {
            #expect(Self.failure { _ = try key.open(box.prefix(length), aad: Data("aad".utf8)) } == .decode)
        }
        for index in box.indices {
            var altered = box
            altered[index] ^= 0x01
            #expect(Self.failure { _ = try key.open(altered, aad: Data("aad".utf8)) } == .decode)
        }
        let itemKey = try SecureBytes.random(count: 32)
        let once = try SymmetricKey.sealOnce(Data("value".utf8), key: itemKey, aad: Data("aad".utf8), nonce: Self.bytes(12, 3))
        var altered = once
        altered[altered.count - 1] ^= 1
        #expect(Self.failure { _ = try altered.withUnsafeBytes { try SymmetricKey.openOnce($0, key: itemKey, aad: Data("aad".utf8)) } } == .decode)
    }

    @Test("A key other than 16, 24 or 32 bytes, or a nonce of another length than the cipher's, is errSecParam")
    func refusesUnusableKeysAndNonces() throws {
        for length in [0, 15, 20, 31, 33, 64] {
            #expect(Self.failure { _ = try Self.seal(Self.bytes(length, 1), Self.bytes(12, 2), Data("x".utf8), Data()) } == .param)
        }
        #expect(Self.failure { _ = try Self.seal(Self.bytes(32, 1), Data(), Data("x".utf8), Data()) } == .param)
        let cipher = try Self.bytes(32, 1).withUnsafeBytes { try AESGCMCipher(key: $0) }
        #expect(cipher.nonceLength == AESGCMCipher.nonceLength)
        let plaintext = Data("x".utf8)
        for length in [11, 13, 16] {
            #expect(Self.failure {
                _ = try Self.bytes(length, 2).withUnsafeBytes { nonce in
                    try plaintext.withUnsafeBytes { try cipher.seal(nonce: nonce, plaintext: $0, aad: UnsafeRawBufferPointer(start: nil, count: 0)) }
                }
            } == .param)
        }
        #expect(Self.failure { try Self.bytes(16, 1).withUnsafeBytes { try cipher.rekey($0) } } == .param)
        let key = try SymmetricKey.random()
        #expect(Self.failure { _ = try key.seal(plaintext, aad: Data(), nonce: Self.bytes(16, 2)) } == .param)
    }

    @Test("A reused cipher, a one-off cipher and SymmetricKey give the same bytes for the same key and nonce")
    func reusedAndOneOffAgree() throws {
        for layout in Self.layouts {
            let key = Self.bytes(layout.key, 4)
            let cipher = try key.withUnsafeBytes { try AESGCMCipher(key: $0, nonceLength: layout.nonce) }
            for round in 0..<4 {
                let nonce = Self.bytes(layout.nonce, UInt8(10 + round))
                let plaintext = Self.bytes(round * 17, UInt8(round))
                let aad = Self.bytes(round * 5, 7)
                let reused = try nonce.withUnsafeBytes { nonce in
                    try plaintext.withUnsafeBytes { plaintext in
                        try aad.withUnsafeBytes { try cipher.seal(nonce: nonce, plaintext: plaintext, aad: $0) }
                    }
                }
                #expect(reused == (try Self.seal(key, nonce, plaintext, aad)), "round \(round) of \(layout)")
                let opened = try nonce.withUnsafeBytes { nonce in
                    try reused.withUnsafeBytes { sealed in
                        try aad.withUnsafeBytes { try cipher.open(nonce: nonce, sealed: sealed, aad: $0) }
                    }
                }
                #expect(opened.withUnsafeBytes { Data($0) } == plaintext)
                if layout.key == SymmetricKey.byteCount && layout.nonce == AESGCMCipher.nonceLength {
                    let symmetric = try SymmetricKey(SecureBytes(copying: key))
                    #expect(try symmetric.seal(plaintext, aad: aad, nonce: nonce) == nonce + reused)
                    #expect(try SymmetricKey.sealOnce(plaintext, key: SecureBytes(copying: key), aad: aad, nonce: nonce) == nonce + reused)
                }
            }
        }
    }

    @Test("A scrubbed cipher no longer opens what its key sealed; re-keyed, it does again")
    func scrubForgetsTheKey() throws {
        let key = Self.bytes(32, 5)
        let nonce = Self.bytes(12, 6)
        let sealed = try Self.seal(key, nonce, Data("item secret".utf8), Data())
        let cipher = try key.withUnsafeBytes { try AESGCMCipher(key: $0) }
        func open() throws -> Data {
            try nonce.withUnsafeBytes { nonce in
                try sealed.withUnsafeBytes { try cipher.open(nonce: nonce, sealed: $0, aad: UnsafeRawBufferPointer(start: nil, count: 0)) }
            }.withUnsafeBytes { Data($0) }
        }
        #expect(try open() == Data("item secret".utf8))
        cipher.scrub()
        #expect(cipher.isScrubbed)
        #expect(Self.failure { _ = try open() } == .decode)
        try key.withUnsafeBytes { try cipher.rekey($0) }
        #expect(!cipher.isScrubbed)
        #expect(try open() == Data("item secret".utf8))
    }
}

/// Apple reports an ECIES or RSA-OAEP-AESGCM ciphertext whose AES-GCM part does not
/// authenticate as errSecParam, not as the keychain's own errSecDecode.
@Suite("AES-GCM failures in Apple's layouts")
struct AppleLayoutFailureTests {
    @Test("A tampered ECIES or RSA-OAEP-AESGCM ciphertext is errSecParam", arguments: [
        (KeyType.ellipticCurve, 256, "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM"),
        (KeyType.ellipticCurve, 384, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV"),
        (KeyType.rsa, 2048, "algid:encrypt:RSA:OAEP:SHA256:AESGCM"),
    ])
    func tamperedCiphertextIsParam(type: KeyType, bits: Int, algorithm: String) throws {
        let key = try AsymmetricKey.generate(type: type, bits: bits)
        let plaintext = Data("meet me at the bridge".utf8)
        let ciphertext = try key.publicKey().encrypt(algorithm, plaintext)
        #expect(try key.decrypt(algorithm, ciphertext).withUnsafeBytes { Data($0) } == plaintext)
        // The last bytes are the tag, the ones before it the AES-GCM ciphertext.
        for index in [ciphertext.count - 1, ciphertext.count - AESGCMCipher.tagLength - 1] {
            var tampered = ciphertext
            tampered[index] ^= 0x01
            let error = #expect(throws: KeychainError.self) { _ = try key.decrypt(algorithm, tampered) }
            #expect(error?.code == .param)
            #expect(error?.reason.hasSuffix("Failed to aes-gcm decrypt data") == true, "\(error?.reason ?? "")")
        }
    }
}
