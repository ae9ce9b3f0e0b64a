import Foundation
import KeychainCrypto
import Synchronization

/// A 256-bit key used for AES-256-GCM sealing, HMAC-SHA256 tokens and HKDF derivation.
///
/// The key bytes live in `SecureBytes` and are zeroed when the last reference goes away.
struct SymmetricKey: Sendable {
    /// The key length in bytes.
    static let byteCount = 32

    let bytes: SecureBytes
    /// The key prepared for HMAC and AES-GCM (computed on first use, then shared by every copy).
    private let prepared: PreparedKey

    /// Wraps existing key material; it must be 32 bytes.
    init(_ bytes: SecureBytes) throws {
        guard bytes.count == Self.byteCount else { throw KeychainError(.decode, "key has the wrong length") }
        self.bytes = bytes
        prepared = PreparedKey()
    }

    /// A fresh key from the CSPRNG.
    static func random() throws -> SymmetricKey {
        try SymmetricKey(SecureBytes.random(count: byteCount))
    }

    /// Whether `other` is the same key (compared in constant time).
    func hasSameBytes(as other: SymmetricKey) -> Bool {
        bytes.withUnsafeBytes { mine in other.bytes.withUnsafeBytes { OpenSSL.constantTimeEqual(mine, $0) } }
    }

    /// Encrypts with a random 96-bit nonce; returns `nonce ‖ ciphertext ‖ tag` (`AESGCMCipher`).
    func seal<Plaintext: ContiguousBytes>(_ plaintext: Plaintext, aad: some ContiguousBytes) throws -> Data {
        try seal(plaintext, aad: aad, nonce: try SecureRandom.data(count: AESGCMCipher.nonceLength))
    }

    /// Encrypts with `nonce` (12 bytes, random: callers that need several random values take
    /// them from one `RandomDraw`); returns `nonce ‖ ciphertext ‖ tag`.
    func seal<Plaintext: ContiguousBytes>(_ plaintext: Plaintext, aad: some ContiguousBytes, nonce: Data) throws -> Data {
        try bytes.withUnsafeBytes { try Self.seal(plaintext, key: $0, aad: aad, nonce: nonce, ciphers: prepared.gcm) }
    }

    /// Decrypts `nonce ‖ ciphertext ‖ tag`; throws `errSecDecode` if anything was altered.
    func open(_ box: Data, aad: some ContiguousBytes) throws -> SecureBytes {
        try box.withUnsafeBytes { try open($0, aad: aad) }
    }

    /// Decrypts `nonce ‖ ciphertext ‖ tag` held in `box`; throws `errSecDecode` if anything was altered.
    func open(_ box: UnsafeRawBufferPointer, aad: some ContiguousBytes) throws -> SecureBytes {
        try bytes.withUnsafeBytes { try Self.open(box, key: $0, aad: aad, ciphers: prepared.gcm) }
    }

    /// Encrypts under `key`, a key used for this one operation (an item's own key), with
    /// `nonce`; returns `nonce ‖ ciphertext ‖ tag`. No state is prepared or kept for the key.
    static func sealOnce<Plaintext: ContiguousBytes>(
        _ plaintext: Plaintext, key: SecureBytes, aad: some ContiguousBytes, nonce: Data
    ) throws -> Data {
        precondition(key.count == byteCount)
        return try key.withUnsafeBytes { try seal(plaintext, key: $0, aad: aad, nonce: nonce, ciphers: .singleUse) }
    }

    /// Decrypts `nonce ‖ ciphertext ‖ tag` in `box` under `key`, a key used for this one
    /// operation (an item's own key): no state is prepared or kept for it.
    static func openOnce(_ box: UnsafeRawBufferPointer, key: SecureBytes, aad: some ContiguousBytes) throws -> SecureBytes {
        guard key.count == byteCount else { throw KeychainError(.decode, "key has the wrong length") }
        return try key.withUnsafeBytes { try open(box, key: $0, aad: aad, ciphers: .singleUse) }
    }

    /// `nonce ‖ ciphertext ‖ tag` of `plaintext` under `key`, with a cipher from `ciphers`.
    private static func seal<Plaintext: ContiguousBytes>(
        _ plaintext: Plaintext, key: UnsafeRawBufferPointer, aad: some ContiguousBytes, nonce: Data,
        ciphers: AESGCMContextPool
    ) throws -> Data {
        try nonce.withUnsafeBytes { nonce in
            try plaintext.withUnsafeBytes { message in
                try aad.withUnsafeBytes { aad in
                    try withEngineErrors {
                        try ciphers.withCipher(key: key) { try $0.sealBox(nonce: nonce, plaintext: message, aad: aad) }
                    }
                }
            }
        }
    }

    /// The plaintext of `nonce ‖ ciphertext ‖ tag` under `key`, with a cipher from `ciphers`.
    private static func open(
        _ box: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, aad: some ContiguousBytes, ciphers: AESGCMContextPool
    ) throws -> SecureBytes {
        try aad.withUnsafeBytes { aad in
            try withEngineErrors { try ciphers.withCipher(key: key) { try $0.openBox(box, aad: aad) } }
        }
    }

    /// HMAC-SHA256 of `message` under this key.
    func authenticationCode<Message: ContiguousBytes>(for message: Message) throws -> Data {
        let key = try prepared.hmac(for: bytes)
        return try message.withUnsafeBytes { message in try withEngineErrors { try key.authenticate(message) } }
    }

    /// HMAC-SHA256 of the message `head ‖ body` under this key, into the first 32 bytes of
    /// `out` (no buffer joins the parts).
    func authenticate(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws {
        let key = try prepared.hmac(for: bytes)
        try withEngineErrors { try key.authenticate(head, body, into: out) }
    }

    /// A key derived with HKDF-SHA256 from key material of any length (for example a
    /// passcode-derived secret joined with the device key).
    static func derive(from material: SecureBytes, purpose: String) throws -> SymmetricKey {
        try material.withUnsafeBytes { try hkdf($0, purpose: purpose) }
    }

    /// A subkey for one purpose, derived with HKDF-SHA256.
    func derive(purpose: String) throws -> SymmetricKey {
        try bytes.withUnsafeBytes { try Self.hkdf($0, purpose: purpose) }
    }

    /// The key HKDF-SHA256 derives from `material` for `purpose`, with the keychain's salt.
    private static func hkdf(_ material: UnsafeRawBufferPointer, purpose: String) throws -> SymmetricKey {
        try SymmetricKey(
            withEngineErrors {
                try OpenSSL.hkdfSHA256(
                    key: material, salt: Array("swift-keychain".utf8), info: Array(purpose.utf8), length: byteCount)
            })
    }
}

/// What a symmetric key is prepared into on first use, shared by every copy of the key and
/// released with it: the HMAC states and the AES-GCM contexts holding its key schedule.
final class PreparedKey: Sendable {
    private let hmacKey = Mutex<OpenSSL.HMACKey?>(nil)
    /// Keyed AES-256-GCM ciphers (each created on demand with the key's bytes).
    let gcm = AESGCMContextPool()

    /// The HMAC key for `bytes` (the key's own bytes), prepared the first time.
    func hmac(for bytes: SecureBytes) throws -> OpenSSL.HMACKey {
        try hmacKey.withLock { prepared in
            if let prepared { return prepared }
            let key = try bytes.withUnsafeBytes { bytes in try withEngineErrors { try OpenSSL.HMACKey(key: bytes) } }
            prepared = key
            return key
        }
    }
}

/// Comparisons of secret-dependent values that take the same time wherever the values differ.
enum ConstantTime {
    /// Whether `left` and `right` hold the same bytes.
    static func equal(_ left: Data, _ right: Data) -> Bool {
        left.withUnsafeBytes { l in right.withUnsafeBytes { OpenSSL.constantTimeEqual(l, $0) } }
    }
}

/// Message digests used for attribute values Apple defines as digests.
enum Digest {
    /// SHA-1, as Apple uses for `kSecAttrApplicationLabel`, `kSecAttrPublicKeyHash` and `sha1`.
    static func sha1(_ data: Data) throws -> Data {
        try data.withUnsafeBytes { bytes in try withEngineErrors { try OpenSSL.digest("SHA1", bytes) } }
    }

    /// SHA-256.
    static func sha256(_ data: Data) throws -> Data {
        try data.withUnsafeBytes { bytes in try withEngineErrors { try OpenSSL.digest("SHA256", bytes) } }
    }
}
