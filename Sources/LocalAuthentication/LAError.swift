import Foundation

/// The domain of LocalAuthentication's errors.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// A LocalAuthentication error (`LAError`): an `NSError` in `LAErrorDomain` with one of Apple's
/// codes. `catch LAError.userCancel` matches it by code, and `error as NSError` gives the domain
/// and code.
public struct LAError: _BridgedStoredNSError, Hashable, @unchecked Sendable {
    /// The bridged `NSError`.
    public let _nsError: NSError

    /// Wraps an `NSError` of `LAErrorDomain`.
    public init(_nsError error: NSError) {
        _nsError = error
    }

    /// `LAErrorDomain`.
    public static var errorDomain: String { LAErrorDomain }
    /// `LAErrorDomain`, for Foundation's bridging.
    public static var _nsErrorDomain: String { LAErrorDomain }

    /// Apple's codes.
    public enum Code: Int, _ErrorCodeProtocol, Sendable {
        /// The error type these codes belong to.
        public typealias _ErrorType = LAError

        /// The user did not authenticate (a wrong passcode).
        case authenticationFailed = -1
        /// The user cancelled.
        case userCancel = -2
        /// The user chose the fallback button.
        case userFallback = -3
        /// The system cancelled.
        case systemCancel = -4
        /// No passcode is set.
        case passcodeNotSet = -5
        /// No biometry is available.
        case biometryNotAvailable = -6
        /// No biometric identity is enrolled.
        case biometryNotEnrolled = -7
        /// Biometry is locked out after too many failures.
        case biometryLockout = -8
        /// The app invalidated the context during the evaluation.
        case appCancel = -9
        /// The context was invalidated before the evaluation.
        case invalidContext = -10
        /// No paired companion (watch) is available.
        case companionNotAvailable = -11
        /// The paired biometric accessory is not paired.
        case biometryNotPaired = -12
        /// The biometric accessory is disconnected.
        case biometryDisconnected = -13
        /// Invalid dimensions were given.
        case invalidDimensions = -14
        /// Authentication needed the user, and interaction was not allowed (or is not possible).
        case notInteractive = -1004

        /// The former name of `biometryNotAvailable`.
        public static let touchIDNotAvailable = Code.biometryNotAvailable
        /// The former name of `biometryNotEnrolled`.
        public static let touchIDNotEnrolled = Code.biometryNotEnrolled
        /// The former name of `biometryLockout`.
        public static let touchIDLockout = Code.biometryLockout
        /// The former name of `companionNotAvailable`.
        public static let watchNotAvailable = Code.companionNotAvailable
    }

    /// `Code.authenticationFailed`, so that `catch LAError.authenticationFailed` matches the code.
    public static var authenticationFailed: Code { .authenticationFailed }
    /// `Code.userCancel`, so that `catch LAError.userCancel` matches the code.
    public static var userCancel: Code { .userCancel }
    /// `Code.userFallback`, so that `catch LAError.userFallback` matches the code.
    public static var userFallback: Code { .userFallback }
    /// `Code.systemCancel`, so that `catch LAError.systemCancel` matches the code.
    public static var systemCancel: Code { .systemCancel }
    /// `Code.passcodeNotSet`, so that `catch LAError.passcodeNotSet` matches the code.
    public static var passcodeNotSet: Code { .passcodeNotSet }
    /// `Code.biometryNotAvailable`, so that `catch LAError.biometryNotAvailable` matches the code.
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    /// `Code.biometryNotEnrolled`, so that `catch LAError.biometryNotEnrolled` matches the code.
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    /// `Code.biometryLockout`, so that `catch LAError.biometryLockout` matches the code.
    public static var biometryLockout: Code { .biometryLockout }
    /// `Code.appCancel`, so that `catch LAError.appCancel` matches the code.
    public static var appCancel: Code { .appCancel }
    /// `Code.invalidContext`, so that `catch LAError.invalidContext` matches the code.
    public static var invalidContext: Code { .invalidContext }
    /// `Code.companionNotAvailable`, so that `catch LAError.companionNotAvailable` matches the code.
    public static var companionNotAvailable: Code { .companionNotAvailable }
    /// `Code.biometryNotPaired`, so that `catch LAError.biometryNotPaired` matches the code.
    public static var biometryNotPaired: Code { .biometryNotPaired }
    /// `Code.biometryDisconnected`, so that `catch LAError.biometryDisconnected` matches the code.
    public static var biometryDisconnected: Code { .biometryDisconnected }
    /// `Code.invalidDimensions`, so that `catch LAError.invalidDimensions` matches the code.
    public static var invalidDimensions: Code { .invalidDimensions }
    /// `Code.notInteractive`, so that `catch LAError.notInteractive` matches the code.
    public static var notInteractive: Code { .notInteractive }
    /// `Code.biometryNotAvailable`, so that `catch LAError.touchIDNotAvailable` matches the code.
    public static var touchIDNotAvailable: Code { .biometryNotAvailable }
    /// `Code.biometryNotEnrolled`, so that `catch LAError.touchIDNotEnrolled` matches the code.
    public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
    /// `Code.biometryLockout`, so that `catch LAError.touchIDLockout` matches the code.
    public static var touchIDLockout: Code { .biometryLockout }
    /// `Code.companionNotAvailable`, so that `catch LAError.watchNotAvailable` matches the code.
    public static var watchNotAvailable: Code { .companionNotAvailable }

    /// An error with `code` and a description of it (`NSLocalizedDescriptionKey`); `detail`,
    /// when given, says more (`NSDebugDescription`) and never holds a secret.
    init(code: Code, detail: String? = nil) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: code.summary]
        if let detail { info[NSDebugDescriptionErrorKey] = detail }
        self.init(_nsError: NSError(domain: LAErrorDomain, code: code.rawValue, userInfo: info))
    }
}

extension LAError.Code {
    /// Apple's description of the code.
    var summary: String {
        switch self {
        case .authenticationFailed: return "Authentication failed."
        case .userCancel: return "Canceled by user."
        case .userFallback: return "Fallback authentication mechanism selected."
        case .systemCancel: return "Canceled by system."
        case .passcodeNotSet: return "Passcode not set."
        case .biometryNotAvailable: return "Biometry is not available on this device."
        case .biometryNotEnrolled: return "No identities are enrolled."
        case .biometryLockout: return "Biometry is locked out."
        case .appCancel: return "Canceled by the application."
        case .invalidContext: return "The context has been invalidated."
        case .companionNotAvailable: return "No paired companion device is available."
        case .biometryNotPaired: return "Biometric accessory is not paired."
        case .biometryDisconnected: return "Biometric accessory is disconnected."
        case .invalidDimensions: return "Invalid dimensions."
        case .notInteractive: return "User interaction is required."
        }
    }
}
