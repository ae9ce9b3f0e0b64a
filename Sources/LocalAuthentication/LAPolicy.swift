/// What an evaluation must establish (`LAPolicy`), with Apple's raw values.
public enum LAPolicy: Int, Sendable, Hashable {
    /// Biometry only. On Linux biometry is not available yet, so this fails with
    /// `LAError.biometryNotAvailable`.
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, a companion, or the device passcode. Here: the keychain passcode, asked through
    /// pinentry.
    case deviceOwnerAuthentication = 2
    /// A paired watch or companion device (macOS); never available here
    /// (`LAError.companionNotAvailable`).
    case deviceOwnerAuthenticationWithWatch = 3
    /// Biometry or a paired watch or companion (macOS); never available here
    /// (`LAError.biometryNotAvailable`).
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    /// Wrist detection (watchOS); never available here (`LAError.companionNotAvailable`).
    case deviceOwnerAuthenticationWithWristDetection = 5

    /// The current name of `deviceOwnerAuthenticationWithWatch`.
    public static let deviceOwnerAuthenticationWithCompanion = LAPolicy.deviceOwnerAuthenticationWithWatch
    /// The current name of `deviceOwnerAuthenticationWithBiometricsOrWatch`.
    public static let deviceOwnerAuthenticationWithBiometricsOrCompanion = LAPolicy.deviceOwnerAuthenticationWithBiometricsOrWatch
}
