import Foundation
import KeychainCrypto
import KeychainHardware
import KeychainSQLite
import Synchronization

/// A keychain's rollback counter: an NV counter in the TPM (monotonic: it only ever goes up, and
/// a counter defined again starts above every value a counter of that TPM ever had) that the
/// rollback ledger's root carries (`LedgerRoot.counter`, under the root's MAC). Every write
/// transaction increments it once, before its first root write, and stores the new value in the
/// root; the open of the keychain compares the two. A database, write-ahead log or ledger put
/// back from an older copy carries an older value: the open reports it as damage.
///
/// The window that remains is one transaction: a process that stops between the increment and
/// its commit leaves the counter one ahead of the root, which the open must accept, so the state
/// just before the last write can be put back undetected.
final class RollbackCounter: Sendable {
    /// The TPM (a TCTI string).
    let tcti: String
    /// The NV index handle (in the owner range 0x01000000–0x013FFFFF), derived from the ledger key.
    let index: UInt32
    /// The value the open transaction of each connection reserved.
    private let reserved = Mutex<[ObjectIdentifier: UInt64]>([:])

    /// The counter of the keychain whose ledger key is `ledgerKey`, on the TPM `tcti` selects.
    init(tcti: String, ledgerKey: SymmetricKey) throws {
        self.tcti = tcti
        let digest = [UInt8](try ledgerKey.authenticationCode(for: Data("rollback counter NV index v1".utf8)))
        index = 0x0100_0000 | (UInt32(digest[0]) << 16 | UInt32(digest[1]) << 8 | UInt32(digest[2])) & 0x003F_FFFF
    }

    /// The counter's value: nil when the TPM has no counter at the index, 0 when it was never
    /// incremented.
    ///
    /// - Throws: `errSecNotAvailable` when the TPM cannot be reached; `errSecInvalidKeychain`
    ///   when the index holds something else.
    func current() throws -> UInt64? {
        try withContext { try $0.counter(at: index) }
    }

    /// Defines the counter (it starts unwritten).
    ///
    /// - Throws: the TPM's refusal (NV space full, an owner authorization set), as
    ///   `errSecNotAvailable` or `errSecInternalComponent`.
    func define() throws {
        try withContext { try $0.defineCounter(at: index) }
    }

    /// Starts a write transaction on `connection`: nothing is reserved for it yet.
    func begin(_ connection: SQLiteConnection) {
        reserved.withLock { $0[ObjectIdentifier(connection)] = nil }
    }

    /// Ends the write transaction on `connection`.
    func end(_ connection: SQLiteConnection) {
        reserved.withLock { $0[ObjectIdentifier(connection)] = nil }
    }

    /// The value the transaction on `connection` stores in the root: the counter incremented
    /// once for the transaction.
    ///
    /// - Throws: `errSecNotAvailable` when the TPM cannot be reached (the write fails: a write
    ///   that did not advance the counter could be rolled back undetected).
    func value(for connection: SQLiteConnection) throws -> UInt64 {
        let key = ObjectIdentifier(connection)
        if let value = reserved.withLock({ $0[key] }) { return value }
        let value = try withContext { try $0.incrementCounter(at: index) }
        reserved.withLock { $0[key] = value }
        return value
    }

    private func withContext<T>(_ body: (TPMContext) throws -> T) throws -> T {
        do {
            let context = try TPMContext(tcti: tcti, storageKey: false)
            defer { context.close() }
            return try body(context)
        } catch let error as TPMError {
            switch error.kind {
            case .unavailable:
                throw KeychainError(.notAvailable, "the TPM holding the keychain's rollback counter is not available: \(error.description)")
            case .invalidInput:
                throw KeychainError(.invalidKeychain, "the TPM's NV index for the keychain's rollback counter holds something else")
            case .keyRejected, .failed, .authorizationFailed, .lockedOut:
                throw KeychainError(.internal, "the TPM refused the rollback counter: \(error.description)")
            }
        }
    }
}
