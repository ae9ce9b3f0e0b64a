import Foundation

/// Failed passcode attempts and the delays they impose, as Apple's devices escalate them
/// (platform facts A.4): none for the first four failures, then 1 minute after the fifth,
/// 5 minutes after the sixth, 15 minutes after the seventh and eighth, and 1 hour after every
/// later one. Repeating the wrong passcode just tried does not count again.
///
/// The record lives in the keybag (under its MAC), so restarting a process does not reset it.
struct PasscodeAttempts: Equatable, Sendable {
    /// Consecutive failed attempts since the last success.
    var failures: UInt32 = 0
    /// When the last failed attempt happened.
    var lastFailure: Date?
    /// A keyed fingerprint of the last wrong passcode (not the passcode, and not a fast oracle for it).
    var lastWrongFingerprint: Data?

    /// The delay after `failures` consecutive failures.
    static func delay(afterFailures failures: UInt32) -> TimeInterval {
        switch failures {
        case 0...4: return 0
        case 5: return 60
        case 6: return 5 * 60
        case 7, 8: return 15 * 60
        default: return 60 * 60
        }
    }

    /// How long the caller must still wait before another attempt is evaluated; nil when it may try now.
    func remainingDelay(at now: Date) -> TimeInterval? {
        guard let lastFailure else { return nil }
        let remaining = lastFailure.addingTimeInterval(Self.delay(afterFailures: failures)).timeIntervalSince(now)
        return remaining > 0 ? remaining : nil
    }

    /// Records a wrong passcode with `fingerprint`; the same wrong passcode twice in a row counts once.
    mutating func recordFailure(fingerprint: Data, at now: Date) {
        if let lastWrongFingerprint, ConstantTime.equal(lastWrongFingerprint, fingerprint) { return }
        failures += 1
        lastFailure = now
        lastWrongFingerprint = fingerprint
    }

    /// Whether a success has anything to reset.
    var isClear: Bool { self == PasscodeAttempts() }
}
