/// How a keychain directory's device key (the secret every keybag is wrapped with) is kept.
public enum DeviceBinding: Equatable, Sendable {
    /// In a private file, in the clear: a copy of the directory opens on another machine.
    case file
    /// Sealed by the machine's TPM 2.0: only that TPM unseals it, so a copy of the directory
    /// opens on no other machine.
    case tpm
}
