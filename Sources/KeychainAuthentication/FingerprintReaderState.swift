/// What the fingerprint service says about the user's reader, without asking for a finger.
package enum FingerprintReaderState: Equatable, Sendable {
    /// The machine has no reader (or no fingerprint service).
    case noReader
    /// A reader exists and the user has no enrolled finger on it.
    case notEnrolled
    /// A reader exists with these enrolled fingers.
    case enrolled(EnrolledFingerprints)
}

/// A verifier that can tell a missing reader from a reader without enrolled fingers (which
/// `enrolledFingerprints()` reports alike, as nil).
package protocol FingerprintReaderReporting: FingerprintVerifying {
    /// The reader's state.
    ///
    /// - Throws: when the fingerprint service cannot be asked.
    func readerState() throws -> FingerprintReaderState
}

extension FingerprintVerifying {
    /// The reader's state: `readerState()` of a verifier that reports it, otherwise
    /// `.enrolled` or, without an enrolled set, `.noReader`.
    package func currentReaderState() throws -> FingerprintReaderState {
        if let reporting = self as? any FingerprintReaderReporting { return try reporting.readerState() }
        return try enrolledFingerprints().map(FingerprintReaderState.enrolled) ?? .noReader
    }
}
