/// The kind of biometry a device has (`LABiometryType`), with Apple's raw values.
///
/// No biometric reader is used on Linux yet, so a context reports `.none`.
public enum LABiometryType: Int, Sendable, Hashable {
    /// No biometry.
    case none = 0
    /// A fingerprint reader.
    case touchID = 1
    /// Face recognition.
    case faceID = 2
    /// Iris recognition.
    case opticID = 4
}
