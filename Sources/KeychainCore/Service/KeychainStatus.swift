import Foundation

/// What `security show-keychain-info` reports about a keychain, and what a client needs to know
/// before it asks for a passcode.
public struct KeychainStatus: Equatable, Sendable {
    /// Which keys of the keychain are available now.
    public var lockState: LockState
    /// Whether a passcode protects the keychain.
    public var hasPasscode: Bool
    /// How long until another passcode attempt is evaluated; nil when one may be made now.
    public var passcodeRetryDelay: TimeInterval?
    /// The `keychaind` process holding the keychain's keys, or nil when it is open in the
    /// calling process.
    public var daemonProcess: Int32?

    /// Creates a status.
    public init(lockState: LockState, hasPasscode: Bool, passcodeRetryDelay: TimeInterval?, daemonProcess: Int32?) {
        self.lockState = lockState
        self.hasPasscode = hasPasscode
        self.passcodeRetryDelay = passcodeRetryDelay
        self.daemonProcess = daemonProcess
    }
}
