import Foundation
import KeychainCrypto
import KeychainHardware

/// The TPM's part in checking a passcode: a sealed data object (not noDA) whose authorization
/// value is derived from the passcode, holding a random secret that the passcode's wrapping key
/// is derived from too. So a passcode is checked by the TPM before anything can be unwrapped:
/// every wrong one counts toward the TPM's dictionary-attack lockout (after the TPM's
/// `maxTries` failures it refuses every attempt, the right passcode too, and forgets one failure
/// every `recoveryTime` seconds), and that count lives in the TPM, where copying back an older
/// keybag cannot reset it. Without the TPM no guess can be checked at all: the keybag's files
/// lack the secret.
///
/// The gate is created when a passcode is set while a TPM answers (the configured one,
/// `TPMContext.configuredTCTI`); the keybag keeps its blob (`Keybag.passcodeGate`).
enum PasscodeGate {
    /// The TPM refused the passcode's authorization value: a wrong passcode, counted by the TPM.
    struct WrongPasscode: Error {}

    /// A new gate holding `secret` behind `authValue`, encoded for the keybag; nil when no TPM
    /// is configured or it does not answer (the passcode then has no gate).
    static func create(secret: SecureBytes, authValue: SymmetricKey) -> Data? {
        guard let tcti = TPMContext.configuredTCTI() else { return nil }
        do {
            let context = try TPMContext(tcti: tcti)
            defer { context.close() }
            return try secret.withUnsafeBytes { data in
                try authValue.bytes.withUnsafeBytes { auth in try context.seal(data, authValue: auth) }
            }.encoded
        } catch {
            return nil
        }
    }

    /// The secret the gate `encoded` holds, released by the TPM for the right `authValue`.
    ///
    /// - Throws: `WrongPasscode` when the TPM refuses `authValue` (it counted the failure);
    ///   `errSecAuthFailed` while the TPM is locked out (nothing is evaluated); `errSecNotAvailable`
    ///   when no TPM is configured or it does not answer; `errSecInvalidKeychain` when the gate
    ///   belongs to another TPM or is not a gate.
    static func open(_ encoded: Data, authValue: SymmetricKey) throws -> SecureBytes {
        guard let blob = try? TPMSealedBlob(encoded: encoded), blob.countsFailedAuthorizations else {
            throw KeychainError(.invalidKeychain, "the keybag's passcode gate is not valid")
        }
        guard let tcti = TPMContext.configuredTCTI() else {
            throw KeychainError(
                .notAvailable, "the passcode is checked by a TPM and none is configured (set KEYCHAIN_TPM or make /dev/tpmrm0 accessible)")
        }
        do {
            let context = try TPMContext(tcti: tcti)
            defer { context.close() }
            return try authValue.bytes.withUnsafeBytes { auth in
                try context.unseal(blob, authValue: auth) { SecureBytes(copying: Data($0)) }
            }
        } catch let error as TPMError {
            switch error.kind {
            case .authorizationFailed: throw WrongPasscode()
            case .lockedOut:
                throw KeychainError(
                    .authFailed, "the TPM refuses passcode attempts after too many failures (dictionary-attack lockout): try again later")
            case .unavailable: throw KeychainError(.notAvailable, "the TPM that checks the passcode is not available: \(error.description)")
            case .keyRejected, .invalidInput, .failed:
                throw KeychainError(.invalidKeychain, "the TPM could not open the passcode gate: \(error.description)")
            }
        }
    }
}
