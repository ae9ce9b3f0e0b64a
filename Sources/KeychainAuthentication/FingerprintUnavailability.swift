/// Why a fingerprint verification could not give a verdict: the kinds of
/// `FingerprintVerdict.unavailable`, whose reason starts with the kind's text so that a caller
/// can tell them apart (`init?(reason:)`) and a person can read it.
package enum FingerprintUnavailability: String, CaseIterable, Sendable {
    /// The fingerprint service (fprintd) cannot be reached, or stopped during the verification.
    case serviceUnreachable = "the fingerprint service cannot be reached"
    /// The machine has no fingerprint reader.
    case noReader = "no fingerprint reader"
    /// The user has no enrolled finger.
    case notEnrolled = "no finger is enrolled"
    /// Another program holds the reader.
    case busy = "the fingerprint reader is in use"
    /// The service refused this user the reader.
    case denied = "the fingerprint service refused access"
    /// The reader was disconnected during the verification.
    case disconnected = "the fingerprint reader was disconnected"
    /// No finger touched the reader in the time allowed.
    case timedOut = "no finger touched the reader in time"
    /// The reader or its driver failed.
    case failed = "the fingerprint reader failed"

    /// The reason text of this kind, with `detail` after it.
    package func reason(_ detail: String? = nil) -> String {
        guard let detail, !detail.isEmpty else { return rawValue }
        return rawValue + ": " + detail
    }

    /// The kind a reason text starts with; nil for a reason of another verifier.
    package init?(reason: String) {
        guard let kind = Self.allCases.first(where: { reason == $0.rawValue || reason.hasPrefix($0.rawValue + ": ") }) else {
            return nil
        }
        self = kind
    }
}
