import Foundation

/// The time source for passcode delays and auto-lock, so tests can move time forward without sleeping.
public protocol KeychainClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system's wall clock.
public struct SystemClock: KeychainClock {
    /// Creates the system clock.
    public init() {}

    /// The current time (`Date()`).
    public var now: Date { Date() }
}
