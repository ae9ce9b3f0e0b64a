/// What an evaluation must establish (`LAPolicy`), with Apple's raw values.
public enum LAPolicy: Int, Sendable, Hashable {
    /// Biometry only: a finger on the reader fprintd serves (`LAError.biometryNotAvailable`
    /// without one).
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, a companion, or the device passcode. Here: a finger when biometry can be used,
    /// else the keychain passcode, asked through pinentry.
    case deviceOwnerAuthentication = 2
    /// A paired watch or companion device (macOS); never available here
    /// (`LAError.companionNotAvailable`).
    case deviceOwnerAuthenticationWithWatch = 3
    /// Biometry or a paired watch or companion (macOS): here biometry, as
    /// `deviceOwnerAuthenticationWithBiometrics`.
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    /// Wrist detection (watchOS); never available here (`LAError.companionNotAvailable`).
    case deviceOwnerAuthenticationWithWristDetection = 5

    /// The current name of `deviceOwnerAuthenticationWithWatch`.
    public static let deviceOwnerAuthenticationWithCompanion = LAPolicy.deviceOwnerAuthenticationWithWatch
    /// The current name of `deviceOwnerAuthenticationWithBiometricsOrWatch`.
    public static let deviceOwnerAuthenticationWithBiometricsOrCompanion = LAPolicy.deviceOwnerAuthenticationWithBiometricsOrWatch
}
