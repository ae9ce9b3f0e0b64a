/// The kind of biometry a device has (`LABiometryType`), with Apple's raw values.
///
/// A fingerprint reader (through fprintd) with an enrolled finger is `.touchID`; without one a
/// context reports `.none`. Face and iris recognition do not exist here.
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
