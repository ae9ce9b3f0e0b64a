import Foundation

/// Failed passcode attempts and the delays they impose, as Apple's devices escalate them: none
/// for the first four failures, then 1 minute after the fifth, 5 minutes after the sixth,
/// 15 minutes after the seventh and eighth, and 1 hour after every later one. Repeating the
/// wrong passcode just tried does not count again.
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

    /// Whether `fingerprint` is that of the wrong passcode tried last: trying it again is
    /// refused without being counted or evaluated (the answer is known).
    func repeatsLastWrongPasscode(_ fingerprint: Data) -> Bool {
        guard let lastWrongFingerprint else { return false }
        return ConstantTime.equal(lastWrongFingerprint, fingerprint)
    }

    /// Counts an attempt as failed, with the delay that brings, before it is evaluated (so an
    /// attempt that cannot be recorded is never evaluated); a success then clears the record.
    mutating func recordAttempt(at now: Date) {
        failures += 1
        lastFailure = now
    }

    /// Whether a success has anything to reset.
    var isClear: Bool { self == PasscodeAttempts() }
}
