internal import COpenSSL
import Foundation
import Synchronization

/// AES-256-GCM cipher contexts that hold one key's schedule, reused from operation to operation
/// with only a new nonce: setting a key up (context allocation, provider set-up, key expansion,
/// the GHASH key) costs several times a short record's encryption. Each context serves one
/// operation at a time; a few idle ones are kept for the next callers.
///
/// The pool belongs to one key: contexts are freed, and their key schedules cleansed by
/// `EVP_CIPHER_CTX_free`, when the pool is released with the key.
final class AESGCMContextPool: Sendable {
    /// How many idle contexts to keep (one per thread that is likely to be using the key at once).
    private static let maximumIdle = 4

    /// Contexts for keys used once (each item's own key): keyed for one operation, then keyed
    /// with zeroes so that no key schedule outlives its operation.
    static let singleUse = AESGCMContextPool(singleUse: true)

    private let idle = Mutex<[Context]>([])
    private let isSingleUse: Bool

    /// A pool for one key.
    convenience init() { self.init(singleUse: false) }

    private init(singleUse: Bool) { isSingleUse = singleUse }

    deinit {
        idle.withLock { $0.removeAll() }
    }

    /// AES-256-GCM encryption; returns ciphertext ‖ 16-byte tag.
    func seal(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer
    ) throws -> Data {
        try withContext(key: key) { context in
            try OpenSSL.aesGCMSeal(context: context, nonce: nonce, plaintext: plaintext, aad: aad)
        }
    }

    /// AES-256-GCM decryption of ciphertext ‖ tag; throws `errSecDecode` when authentication fails.
    func open(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer
    ) throws -> SecureBytes {
        try withContext(key: key) { context in
            try OpenSSL.aesGCMOpen(context: context, nonce: nonce, sealed: sealed, aad: aad)
        }
    }

    private func withContext<R>(key: UnsafeRawBufferPointer, _ body: (OpaquePointer) throws -> R) throws -> R {
        let pooled = idle.withLock { $0.popLast() }
        let context = try pooled ?? Context(key: key)
        if isSingleUse && pooled != nil { try context.setKey(key) }
        defer {
            if isSingleUse { context.scrub() }
            idle.withLock { contexts in
                if contexts.count < Self.maximumIdle && (!isSingleUse || context.isScrubbed) { contexts.append(context) }
            }
        }
        return try body(context.handle)
    }

    /// One keyed `EVP_CIPHER_CTX`, freed (and cleansed) on release.
    private final class Context: @unchecked Sendable {
        let handle: OpaquePointer

        init(key: UnsafeRawBufferPointer) throws {
            precondition(key.count == OpenSSL.aes256KeyLength)
            guard let handle = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
            guard EVP_CipherInit_ex(handle, COpenSSL_AES256GCM(), nil, OpenSSL.bytes(key), nil, 1) == 1 else {
                EVP_CIPHER_CTX_free(handle)
                throw OpenSSL.failure("EVP_CipherInit_ex")
            }
            self.handle = handle
        }

        /// Whether the last `scrub` succeeded (a context that still holds a key is not kept).
        private(set) var isScrubbed = false

        /// Keys the context again (a new key schedule in the same context).
        func setKey(_ key: UnsafeRawBufferPointer) throws {
            precondition(key.count == OpenSSL.aes256KeyLength)
            isScrubbed = false
            guard EVP_CipherInit_ex(handle, nil, nil, OpenSSL.bytes(key), nil, 1) == 1 else {
                throw OpenSSL.failure("EVP_CipherInit_ex")
            }
        }

        /// Replaces the key schedule with that of an all-zero key.
        func scrub() {
            isScrubbed = withUnsafeBytes(of: Context.zeroKey) { EVP_CipherInit_ex(handle, nil, nil, OpenSSL.bytes($0), nil, 1) } == 1
            if !isScrubbed { ERR_clear_error() }
        }

        private static let zeroKey = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))

        deinit { EVP_CIPHER_CTX_free(handle) }
    }
}
