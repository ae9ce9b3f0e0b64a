import Foundation

/// The fingerprints enrolled on the machine's reader, as the fingerprint service reports them.
///
/// Two sets are the same enrolment when they name the same reader and the same fingers; adding
/// or removing a finger makes a different set. `canonicalBytes` is what keyed digests of the set
/// (an item's `.biometryCurrentSet` binding, `LAContext.evaluatedPolicyDomainState`) are computed
/// over, so the order in which the service lists fingers does not matter.
package struct EnrolledFingerprints: Hashable, Sendable {
    /// The reader's name as the service reports it.
    package let reader: String
    /// The enrolled fingers' names (`right-index-finger`, …), sorted.
    package let fingers: [String]

    /// A set of `fingers` on `reader` (the fingers are sorted and duplicates dropped).
    package init(reader: String, fingers: [String]) {
        self.reader = reader
        self.fingers = Array(Set(fingers)).sorted()
    }

    /// A length-prefixed encoding of the reader and the sorted fingers.
    package var canonicalBytes: [UInt8] {
        var bytes: [UInt8] = []
        func append(_ text: String) {
            let utf8 = Array(text.utf8)
            withUnsafeBytes(of: UInt32(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
        append(reader)
        withUnsafeBytes(of: UInt32(fingers.count).bigEndian) { bytes.append(contentsOf: $0) }
        fingers.forEach(append)
        return bytes
    }
}

/// How one fingerprint verification ended.
package enum FingerprintVerdict: Equatable, Sendable {
    /// An enrolled finger matched.
    case matched
    /// The finger did not match (the user may try again).
    case noMatch
    /// Too many failures: the reader refuses until the passcode is entered.
    case lockedOut
    /// The user or the caller cancelled.
    case cancelled
    /// No reader, no enrolled finger, or the service could not be reached (`reason` says which).
    case unavailable(reason: String)
}

/// Verifies the user's fingerprint: the seam between the keychain (which decides when biometry is
/// needed) and the machine's fingerprint service.
package protocol FingerprintVerifying: Sendable {
    /// The enrolled set, or nil when there is no reader or no finger is enrolled.
    func enrolledFingerprints() throws -> EnrolledFingerprints?
    /// Asks the user to touch the reader once and reports the result; `cancellation` withdraws
    /// the request from another thread.
    func verify(reason: String, cancellation: PromptCancellation) -> FingerprintVerdict
}
