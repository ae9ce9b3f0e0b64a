import Foundation

/// A keychain's lock settings, as macOS's `SecKeychainSettings` holds them (`security
/// set-keychain-settings`, `show-keychain-info`). They are stored in the keybag.
public struct KeychainSettings: Equatable, Sendable {
    /// Lock when the system sleeps (`-l`). Recorded and shown; Linux sends no sleep notice yet,
    /// so it has no effect.
    public var lockOnSleep: Bool
    /// Whether the keychain locks after `lockInterval` seconds without use (`-u`, implied by `-t`).
    public var useLockInterval: Bool
    /// The inactivity timeout in seconds; nil for none (macOS's `INT_MAX`).
    public var lockInterval: Int?

    /// Settings with the given values; the defaults are macOS's "no-timeout" without lock-on-sleep.
    public init(lockOnSleep: Bool = false, useLockInterval: Bool = false, lockInterval: Int? = nil) {
        self.lockOnSleep = lockOnSleep
        self.useLockInterval = useLockInterval
        self.lockInterval = lockInterval
    }

    /// The auto-lock interval these settings ask for: the timeout when `useLockInterval` is on.
    public var autoLockInterval: TimeInterval? {
        guard useLockInterval, let lockInterval else { return nil }
        return TimeInterval(lockInterval)
    }
}
