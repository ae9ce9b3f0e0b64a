/// How one biometric verification ended.
package enum BiometricOutcome: Equatable, Sendable {
    /// An enrolled biometric matched.
    case matched
    /// It did not match.
    case noMatch
    /// Too many failures: the reader refuses until the passcode is entered.
    case lockedOut
    /// The user cancelled.
    case cancelled
    /// No reader, nothing enrolled, or the service could not be reached (`reason` says which).
    case unavailable(reason: String)
}

/// The machine's biometric reader as the keychain uses it to check biometric constraints itself:
/// a keychain without one (the default) treats biometry as unavailable.
package protocol BiometricVerifier: Sendable {
    /// The enrolled set in a canonical encoding (equal sets, equal bytes), or nil when there is
    /// no reader or nothing is enrolled.
    func enrolledSet() throws -> [UInt8]?
    /// Asks the user for one verification, showing `reason`.
    func verify(reason: String) -> BiometricOutcome
}
