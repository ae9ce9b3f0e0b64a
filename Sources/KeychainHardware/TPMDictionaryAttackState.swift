/// A TPM's dictionary-attack protection as it stands: how many failed authorizations it counts
/// now, and its parameters (TPM2_DictionaryAttackParameters). When `failures` reaches
/// `maxTries` the TPM is locked out: it refuses every authorization of objects that count
/// failures (not noDA), the right one too; one failure is forgotten every `recoveryTime`
/// seconds.
package struct TPMDictionaryAttackState: Equatable, Sendable {
    /// Failed authorizations counted now (TPM2_PT_LOCKOUT_COUNTER).
    package let failures: Int
    /// The count at which the TPM locks out (TPM2_PT_MAX_AUTH_FAIL).
    package let maxTries: Int
    /// Seconds after which one counted failure is forgotten (TPM2_PT_LOCKOUT_INTERVAL).
    package let recoveryTime: Int
    /// Seconds before the lockout hierarchy may be tried again after one of its own failures
    /// (TPM2_PT_LOCKOUT_RECOVERY).
    package let lockoutRecovery: Int

    /// Whether the TPM refuses authorizations now.
    package var isLockedOut: Bool { maxTries > 0 && failures >= maxTries }
}
