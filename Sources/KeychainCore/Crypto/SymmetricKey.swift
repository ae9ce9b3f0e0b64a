import Foundation

/// A 256-bit key used for AES-256-GCM sealing, HMAC-SHA256 tokens and HKDF derivation.
///
/// The key bytes live in `SecureBytes` and are zeroed when the last reference goes away.
struct SymmetricKey: Sendable {
    /// The key length in bytes.
    static let byteCount = 32

    let bytes: SecureBytes
    /// The key prepared for HMAC (computed on first use, then shared).
    private let hmac: LazyHMACKey

    /// Wraps existing key material; it must be 32 bytes.
    init(_ bytes: SecureBytes) throws {
        guard bytes.count == Self.byteCount else { throw KeychainError(.decode, "key has the wrong length") }
        self.bytes = bytes
        hmac = LazyHMACKey()
    }

    /// A fresh key from the CSPRNG.
    static func random() throws -> SymmetricKey {
        try SymmetricKey(SecureBytes.random(count: byteCount))
    }

    /// Encrypts with a random 96-bit nonce; returns `nonce ‖ ciphertext ‖ tag`.
    func seal<Plaintext: ContiguousBytes>(_ plaintext: Plaintext, aad: Data) throws -> Data {
        let nonce = try SecureRandom.data(count: OpenSSL.gcmNonceLength)
        let sealed = try bytes.withUnsafeBytes { key in
            try nonce.withUnsafeBytes { nonceBuffer in
                try plaintext.withUnsafeBytes { message in
                    try aad.withUnsafeBytes { aadBuffer in
                        try OpenSSL.aesGCMSeal(key: key, nonce: nonceBuffer, plaintext: message, aad: aadBuffer)
                    }
                }
            }
        }
        return nonce + sealed
    }

    /// Decrypts `nonce ‖ ciphertext ‖ tag`; throws `errSecDecode` if anything was altered.
    func open(_ box: Data, aad: Data) throws -> SecureBytes {
        guard box.count >= OpenSSL.gcmNonceLength + OpenSSL.gcmTagLength else {
            throw KeychainError(.decode, "sealed box too short")
        }
        return try bytes.withUnsafeBytes { key in
            try box.withUnsafeBytes { boxBuffer in
                try aad.withUnsafeBytes { aadBuffer in
                    let nonce = UnsafeRawBufferPointer(rebasing: boxBuffer[0..<OpenSSL.gcmNonceLength])
                    let sealed = UnsafeRawBufferPointer(rebasing: boxBuffer[OpenSSL.gcmNonceLength...])
                    return try OpenSSL.aesGCMOpen(key: key, nonce: nonce, sealed: sealed, aad: aadBuffer)
                }
            }
        }
    }

    /// HMAC-SHA256 of `message` under this key.
    func authenticationCode<Message: ContiguousBytes>(for message: Message) throws -> Data {
        let prepared = try hmac.key(for: bytes)
        return try message.withUnsafeBytes { try prepared.authenticate($0) }
    }

    /// A key derived with HKDF-SHA256 from key material of any length (for example a
    /// passcode-derived secret joined with the device key).
    static func derive(from material: SecureBytes, purpose: String) throws -> SymmetricKey {
        try material.withUnsafeBytes { bytes in
            try SymmetricKey(
                OpenSSL.hkdfSHA256(
                    key: bytes, salt: Array("swift-keychain".utf8), info: Array(purpose.utf8), length: byteCount))
        }
    }

    /// A subkey for one purpose, derived with HKDF-SHA256.
    func derive(purpose: String) throws -> SymmetricKey {
        try bytes.withUnsafeBytes { key in
            try SymmetricKey(
                OpenSSL.hkdfSHA256(
                    key: key, salt: Array("swift-keychain".utf8), info: Array(purpose.utf8), length: Self.byteCount))
        }
    }
}

/// An HMAC key prepared once per symmetric key and shared by every copy of it.
final class LazyHMACKey: @unchecked Sendable {
    private let lock = NSLock()
    private var prepared: OpenSSL.HMACKey?

    func key(for bytes: SecureBytes) throws -> OpenSSL.HMACKey {
        lock.lock()
        defer { lock.unlock() }
        if let prepared { return prepared }
        let key = try bytes.withUnsafeBytes { try OpenSSL.HMACKey(key: $0) }
        prepared = key
        return key
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
        try data.withUnsafeBytes { try OpenSSL.digest("SHA1", $0) }
    }

    /// SHA-256.
    static func sha256(_ data: Data) throws -> Data {
        try data.withUnsafeBytes { try OpenSSL.digest("SHA256", $0) }
    }
}
