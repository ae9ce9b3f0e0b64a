import Foundation
import KeychainCrypto
import Synchronization

/// Access control enforced by the keychain itself: an item of a password class whose access
/// control has constraints (`userPresence`, `devicePasscode`, biometry, `watch`) gives its secret
/// only to a request whose grant holds enough of them (one with `.or`, all otherwise); a key
/// item likewise its data, and its private key's use as `useKey` says. The
/// keychain records a factor in a grant only after checking it itself: the passcode by its own
/// unlock (same attempt counter and delays), biometry through its `BiometricVerifier`. Reading
/// attributes and deleting never need a grant.
extension Keychain {
    /// Uses `verifier` for biometric constraints from now on (nil: the process's reader, as
    /// `useBiometricsByDefault` set it).
    package func useBiometrics(_ verifier: (any BiometricVerifier)?) {
        biometrics.withLock { $0 = verifier }
    }

    /// Makes `verifier` the reader of every keychain of this process that was given none of its
    /// own: the machine's fingerprint service, set once by the programs that open keychains for
    /// a user (`keychaind`, and `Security` or `security` opening them in-process).
    package static func useBiometricsByDefault(_ verifier: (any BiometricVerifier)?) {
        defaultBiometrics.withLock { $0 = verifier }
    }

    private static let defaultBiometrics = Mutex<(any BiometricVerifier)?>(nil)

    /// The reader biometric constraints are checked with now, or nil when biometry is unavailable.
    var biometricReader: (any BiometricVerifier)? {
        biometrics.withLock { $0 } ?? Self.defaultBiometrics.withLock { $0 }
    }

    /// Checks `passcode` as `unlock` does (a wrong one counts towards the delays; a right one also
    /// unlocks, and lifts a biometric lockout of the keychain's reader) and records the passcode in
    /// the grant `grant` names, or in a new one.
    ///
    /// - Returns: the grant's identifier.
    /// - Throws: `errSecAuthFailed` for a wrong passcode, or when the keychain has none.
    public func authenticate(passcode: Data, grant: Data?, context: AccessContext) throws -> Data {
        guard hasPasscode else { throw KeychainError(.authFailed, "the keychain has no passcode to authenticate with") }
        try unlock(passcode: passcode)
        biometricReader?.passcodeVerified()
        return try grants.record(into: grant, owner: context.peer) { $0.passcode = true }
    }

    /// Asks the biometric reader for one verification and, when a finger matches, records it (with
    /// the enrolled set it matched against) in the grant `grant` names, or in a new one.
    /// `cancellation` withdraws the verification from another thread.
    ///
    /// - Returns: the grant's identifier.
    /// - Throws: `errSecAuthFailed` when no reader is available, nothing is enrolled, the finger
    ///   does not match or the reader is locked out; `errSecUserCanceled` when the user cancels
    ///   (`BiometricOutcome(failure:)` tells these apart).
    public func authenticateBiometry(
        reason: String, grant: Data?, context: AccessContext, cancellation: (any BiometricCancellation)? = nil
    ) throws -> Data {
        guard let verifier = biometricReader else { throw BiometricOutcome.unavailableError("") }
        guard let enrolled = try verifier.enrolledSet() else { throw BiometricOutcome.unavailableError("nothing is enrolled") }
        let outcome = verifier.verify(reason: reason, cancellation: cancellation)
        if let failure = outcome.failure { throw failure }
        let digest = try biometricDigest(enrolled)
        return try grants.record(into: grant, owner: context.peer) { $0.biometry = digest }
    }

    /// Forgets the grant `grant` names (an `LAContext` invalidated).
    public func revokeAuthentication(grant: Data, context: AccessContext) {
        grants.revoke(grant, owner: context.peer)
    }

    /// The keyed digest that binds a `.biometryCurrentSet` item to the enrolled set: an HMAC under
    /// the keybag's index key, so the stored value says nothing about the set without it.
    func biometricDigest(_ enrolled: [UInt8]) throws -> Data {
        try keyRing.index.tokens.authenticationCode(for: Data("biometry-set v1\u{0}".utf8) + Data(enrolled))
    }

    /// The binding a new `.biometryCurrentSet` access control gets: the digest of the set enrolled
    /// now, nil when none is (such an item never opens by biometry).
    func currentBiometricBinding(for policy: AccessControlPolicy?) throws -> AccessControlPolicy? {
        guard var policy, policy.flags.contains(.biometryCurrentSet) else { return policy }
        let enrolled = try biometricReader?.enrolledSet()
        policy.biometricBinding = try enrolled.map(biometricDigest)
        return policy
    }

    /// Whether the secret of `record` may be read with `authentication`. An item sealed under an
    /// application password also needs the password (checked when its secret is opened: a wrong
    /// one is `errSecAuthFailed`).
    ///
    /// - Returns: true when the item has no constraint to satisfy or the grant satisfies them;
    ///   false when they are not and `ui` is `.skip` (the item is left out).
    /// - Throws: `errSecInteractionNotAllowed` when `ui` is `.fail`; `errSecAuthFailed` when
    ///   nothing the user could do satisfies them (biometry unavailable, a `.biometryCurrentSet`
    ///   item after the enrolled set changed, a watch, no passcode); otherwise
    ///   `.authenticationNeeded` with the item's flags.
    func mayReadSecret(
        of record: ItemRecord, authentication: ItemAuthentication, ui: AuthenticationUI, context: AccessContext
    ) throws -> Bool {
        guard Self.guardedClasses.contains(record.itemClass), let policy = record.accessControl, policy.guardsSecret else {
            return true
        }
        let constraints = policy.userConstraints
        let passwordMissing = Self.enforcedClasses.contains(record.itemClass) && policy.flags.contains(.applicationPassword)
            && authentication.applicationPassword == nil
        let grant = grants.grant(authentication.grant, owner: context.peer)
        let satisfied = constraints.filter { constraint in
            guard let grant else { return false }
            switch constraint {
            case .userPresence: return grant.passcode || grant.biometry != nil
            case .devicePasscode: return grant.passcode
            case .biometryAny: return grant.biometry != nil
            case .biometryCurrentSet:
                // The finger matched the set the item is bound to, and that set is still the
                // enrolled one: a finger added or removed since the match invalidates the item.
                guard let matched = grant.biometry, matched == policy.biometricBinding,
                    let enrolled = try? biometricReader?.enrolledSet()
                else { return false }
                return (try? biometricDigest(enrolled)) == matched
            default: return false
            }
        }
        if satisfied.count >= policy.requiredCount && !passwordMissing { return true }
        switch ui {
        case .fail: throw KeychainError(.interactionNotAllowed, "the item needs authentication and interaction is not allowed")
        case .skip: return false
        case .allow: break
        }

        let verifier = biometricReader
        let enrolled = try? verifier?.enrolledSet()
        let attainable = constraints.filter { constraint in
            switch constraint {
            case .userPresence: return hasPasscode || enrolled != nil
            case .devicePasscode: return hasPasscode
            case .biometryAny: return enrolled != nil
            case .biometryCurrentSet:
                guard let enrolled, let binding = policy.biometricBinding else { return false }
                return (try? biometricDigest(enrolled)) == binding
            default: return false
            }
        }
        guard attainable.count >= policy.requiredCount else {
            throw KeychainError(.authFailed, "the item's access control cannot be satisfied on this machine now")
        }
        throw KeychainError(authenticationNeededFor: policy.flags)
    }

    /// The application password of a new or rewritten item whose access control has
    /// `.applicationPassword`; nil for other items.
    ///
    /// - Throws: `errSecInteractionNotAllowed` (`ui` is `.fail`) or `.authenticationNeeded`
    ///   when the request brings no password.
    func sealingPassword(
        for record: ItemRecord, authentication: ItemAuthentication, ui: AuthenticationUI
    ) throws -> ApplicationPassword? {
        guard Self.enforcedClasses.contains(record.itemClass), let policy = record.accessControl,
            policy.flags.contains(.applicationPassword)
        else { return nil }
        guard let password = authentication.applicationPassword else {
            if ui == .fail {
                throw KeychainError(.interactionNotAllowed, "the item needs its application password and interaction is not allowed")
            }
            throw KeychainError(authenticationNeededFor: policy.flags)
        }
        return ApplicationPassword(password: SecureBytes(copying: password), iterations: try applicationPasswordIterations())
    }

    /// The derivation cost of application passwords: the keychain's configured passcode cost,
    /// else a calibration made once per process (about 80 ms an attempt, as the passcode's).
    func applicationPasswordIterations() throws -> Int {
        if let configured = options.passcodeIterations { return configured }
        return try Self.calibratedPasswordIterations.withLock { cached in
            if let cached { return cached }
            let calibrated = try PasscodeKDF.calibrate()
            cached = calibrated
            return calibrated
        }
    }

    private static let calibratedPasswordIterations = Mutex<Int?>(nil)

    /// A row's secret for `reading`: an application-password secret is opened with the request's
    /// password (`errSecAuthFailed` when wrong, `.authenticationNeeded` with the item's flags when
    /// absent); others as `readableSecretBytes` opens them.
    func guardedSecretBytes(_ blob: Data, of row: StoredRow, record: ItemRecord, password: Data?) throws -> SecureBytes? {
        guard KeychainStore.isPasswordSealed(blob) else { return try readableSecretBytes(blob, of: row) }
        do {
            return try store.openPasswordSecret(blob, sealedIn: row, password: password.map { SecureBytes(copying: $0) })
        } catch let error as KeychainError where error.code == .authenticationNeeded {
            throw KeychainError(authenticationNeededFor: record.accessControl?.flags ?? .applicationPassword)
        }
    }

    /// The classes whose secrets an application password seals (for keys: the key's data).
    static let enforcedClasses: Set<ItemClass> = [.genericPassword, .internetPassword, .key]

    /// The classes whose secrets (for keys: the key's data, and with `.privateKeyUsage` its use)
    /// user constraints guard.
    static let guardedClasses: Set<ItemClass> = [.genericPassword, .internetPassword, .key]
}
