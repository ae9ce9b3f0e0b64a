import Foundation
import KeychainHardware

/// Binding the rollback ledger to the TPM (`RollbackCounter`).
extension Keychain {
    /// When the keychain's device key is sealed by the configured TPM, checks the ledger root's
    /// counter against the TPM's and binds every later write to it; a keychain seen for the first
    /// time with a TPM gets its counter defined (its root carries it from the next write). A
    /// keychain whose device key is in a file, or without a TPM, is left as it is.
    ///
    /// - Throws: `errSecInvalidKeychain` when the root is older than the counter (the database,
    ///   its write-ahead log or the ledger was put back from an older copy) or carries a counter
    ///   the TPM no longer has; `errSecNotAvailable` when the TPM cannot be reached.
    func bindRollbackCounter() throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard options.deviceKeySource == nil, let tcti = TPMContext.configuredTCTI(),
            (try? FileDeviceKey.binding(directory: directory)) == .tpm
        else { return }
        let counter = try RollbackCounter(tcti: tcti, ledgerKey: keyRing.index.ledger)
        // A root that does not authenticate vouches for nothing: its items read as damaged and
        // the next write rebuilds it, unverifiable, carrying the counter again.
        let root = try store.snapshot { try $0.ledgerRoot() }
        switch try counter.current() {
        case nil:
            guard (root?.counter ?? 0) == 0 else {
                throw KeychainError(.invalidKeychain, "the keychain is damaged: its rollback counter is gone from the TPM")
            }
            // A TPM that cannot hold another counter leaves the keychain unbound, as before.
            guard (try? counter.define()) != nil else { return }
        case let value?:
            if let root, root.counter != value && !(value > 0 && root.counter == value - 1) {
                throw KeychainError(
                    .invalidKeychain,
                    "the keychain is damaged: its database or ledger is an older copy than the TPM's rollback counter allows (it was rolled back)")
            }
        }
        store.rollbackCounter.withLock { $0 = counter }
    }
}
