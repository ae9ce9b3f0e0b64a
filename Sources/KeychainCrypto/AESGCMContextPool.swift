import Foundation
import Synchronization

/// AES-256-GCM ciphers (`AESGCMCipher`) that hold one key's schedule, reused from operation to
/// operation with only a new nonce: setting a key up (context allocation, provider set-up, key
/// expansion, the GHASH key) costs several times a short record's encryption. Each cipher serves
/// one operation at a time; a few idle ones are kept for the next callers.
///
/// The pool belongs to one key: its ciphers, and their key schedules, are cleansed and freed
/// when the pool is released with the key.
package final class AESGCMContextPool: Sendable {
    /// How many idle ciphers to keep (one per thread that is likely to be using the key at once).
    private static let maximumIdle = 4

    /// Ciphers for keys used once (each item's own key): keyed for one operation, then keyed
    /// with zeroes so that no key schedule outlives its operation.
    package static let singleUse = AESGCMContextPool(singleUse: true)

    private let idle = Mutex<[AESGCMCipher]>([])
    private let isSingleUse: Bool

    /// A pool for one key.
    package convenience init() { self.init(singleUse: false) }

    private init(singleUse: Bool) { isSingleUse = singleUse }

    deinit {
        idle.withLock { $0.removeAll() }
    }

    /// Runs `body` with a cipher keyed with `key` (the pool's key, or for the single-use pool
    /// any 32-byte key), taken from the idle ones when one is there.
    package func withCipher<R>(key: UnsafeRawBufferPointer, _ body: (AESGCMCipher) throws -> R) throws -> R {
        // A single-use cipher keyed for another key length is dropped rather than re-keyed.
        let pooled = idle.withLock { $0.popLast() }.flatMap { $0.keyLength == key.count ? $0 : nil }
        let cipher = try pooled ?? AESGCMCipher(key: key)
        if isSingleUse && pooled != nil { try cipher.rekey(key) }
        defer {
            if isSingleUse { cipher.scrub() }
            idle.withLock { ciphers in
                if ciphers.count < Self.maximumIdle && (!isSingleUse || cipher.isScrubbed) { ciphers.append(cipher) }
            }
        }
        return try body(cipher)
    }
}
