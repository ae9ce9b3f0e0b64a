import Foundation
import Synchronization
import KeychainCore
import KeychainCrypto

/// The one way the user is asked for what an item's access control needs: biometry through the
/// keychain's reader (the keychain asks it), the passcode through pinentry (checked by the
/// keychain, counted as unlock attempts are). The keychain records each verified factor in a
/// grant, which the caller keeps.
package enum KeychainPrompt {
    /// How a prompt looks and whether one may appear.
    package struct Settings: Sendable {
        /// Where pinentry runs.
        package var environment: PinentryEnvironment
        /// The program name prompts show.
        package var callerName: String
        /// The reason prompts show.
        package var reason: String
        /// The cancel button's label; nil for "Cancel".
        package var cancelTitle: String?
        /// Whether no prompt may be shown.
        package var interactionNotAllowed: Bool

        package init(
            environment: PinentryEnvironment, callerName: String, reason: String, cancelTitle: String? = nil,
            interactionNotAllowed: Bool = false
        ) {
            self.environment = environment
            self.callerName = callerName
            self.reason = reason
            self.cancelTitle = cancelTitle
            self.interactionNotAllowed = interactionNotAllowed
        }
    }

    /// How many passcodes one prompt takes before it fails (gpg-agent's default for a
    /// passphrase); each counts towards the keychain's failed attempts.
    package static let passcodeAttempts = 3

    /// Satisfies `constraints` against `keychain`, starting from `grant` and updating it.
    ///
    /// With `.or` (or `.userPresence`) biometry is tried first when it can serve, then the
    /// passcode; otherwise each constraint is satisfied in turn. The keychain decides in the end:
    /// the caller retries its request with the grant.
    ///
    /// `.applicationPassword` is asked through pinentry when `applicationPassword` is nil, and
    /// what is entered is kept there (the keychain checks it when it opens the item).
    ///
    /// - Throws: `errSecAuthFailed` when the keychain locks while the user is asked (the prompt
    ///   is withdrawn); `errSecUserCanceled` when the user or `cancellation` cancels.
    package static func satisfy(
        _ constraints: AccessControlPolicy.Flags, keychain: any KeychainHandle, grant: inout Data?,
        applicationPassword: inout SecureBytes?, settings: Settings, cancellation: PromptCancellation = PromptCancellation()
    ) throws {
        // A keychain that locks while the user is asked withdraws the prompt (`LockWatch`).
        let watch = settings.interactionNotAllowed ? nil : LockWatch(keychain: keychain, cancellation: cancellation)
        defer { watch?.stop() }
        do {
            try satisfyUser(constraints, keychain: keychain, grant: &grant, settings: settings, cancellation: cancellation)
            if constraints.contains(.applicationPassword) && applicationPassword == nil {
                applicationPassword = try askApplicationPassword(settings: settings, cancellation: cancellation)
            }
        } catch where watch?.sawLock == true {
            throw LockWatch.lockedError
        }
        if watch?.sawLock == true { throw LockWatch.lockedError }
    }

    /// Asks for an item's application password.
    package static func askApplicationPassword(settings: Settings, cancellation: PromptCancellation) throws -> SecureBytes {
        if settings.interactionNotAllowed {
            throw KeychainError(.interactionNotAllowed, "the item needs its application password and interaction is not allowed")
        }
        let request = PinentryRequest.applicationPassword(
            reason: settings.reason, caller: settings.callerName, cancelTitle: settings.cancelTitle)
        switch PinentryPrompter.ask(request, environment: settings.environment, cancellation: cancellation) {
        case .entered(let password): return password
        case .rejected(let why): throw KeychainError(.authFailed, why)
        case .cancelled, .interrupted: throw KeychainError(.userCanceled, "the user cancelled the password prompt")
        case .unavailable(let why): throw KeychainError(.interactionNotAllowed, "no password prompt could be shown: \(why)")
        }
    }

    /// Satisfies the constraints that need the user (biometry, the passcode).
    private static func satisfyUser(
        _ constraints: AccessControlPolicy.Flags, keychain: any KeychainHandle, grant: inout Data?, settings: Settings,
        cancellation: PromptCancellation
    ) throws {
        guard !AccessControlPolicy.userConstraints(of: constraints).isEmpty else { return }
        let biometric = constraints.contains(.biometryAny) || constraints.contains(.biometryCurrentSet)
        let passcode = constraints.contains(.devicePasscode) || constraints.contains(.userPresence)
        let anyOne = constraints.contains(.or) || constraints.contains(.userPresence)
        if biometric || constraints.contains(.userPresence) {
            do {
                grant = try keychain.authenticateBiometry(reason: settings.reason, grant: grant, cancellation: cancellation)
                if anyOne || !passcode { return }
            } catch let error as KeychainError where error.code == .authFailed && anyOne && passcode {
                // Biometry could not serve: the passcode may.
            }
        }
        if passcode { try askPasscode(keychain: keychain, grant: &grant, settings: settings, cancellation: cancellation) }
    }

    /// Asks for the keychain passcode and has the keychain check it (up to `passcodeAttempts`).
    package static func askPasscode(
        keychain: any KeychainHandle, grant: inout Data?, settings: Settings, cancellation: PromptCancellation
    ) throws {
        if settings.interactionNotAllowed {
            throw KeychainError(.interactionNotAllowed, "the item needs the passcode and interaction is not allowed")
        }
        let request = PinentryRequest.passcode(reason: settings.reason, caller: settings.callerName, cancelTitle: settings.cancelTitle)
        let issued = GrantBox(grant)
        let outcome = PinentryPrompter.ask(
            request, environment: settings.environment, cancellation: cancellation, attempts: passcodeAttempts
        ) { passcode in
            do {
                issued.value = try keychain.authenticate(passcode: Data.zeroingCopy(of: passcode), grant: issued.value)
                return .accepted
            } catch let error as KeychainError where error.code == .authFailed {
                return .rejected(reason: "Wrong passcode (\(error.reason)).")
            } catch {
                return .rejected(reason: "The passcode could not be checked.")
            }
        }
        switch outcome {
        case .entered:
            grant = issued.value
        case .rejected(let why): throw KeychainError(.authFailed, why)
        case .cancelled, .interrupted: throw KeychainError(.userCanceled, "the user cancelled the passcode prompt")
        case .unavailable(let why): throw KeychainError(.interactionNotAllowed, "no passcode prompt could be shown: \(why)")
        }
    }

    /// The grant a check issues, carried out of the prompt's check closure.
    private final class GrantBox: @unchecked Sendable {
        var value: Data?
        init(_ value: Data?) { self.value = value }
    }
}

/// A context made for one keychain call when the caller passes none: it prompts in this process's
/// environment, and its grant is forgotten with it (so every such call asks again).
package final class OneCallAuthentication: KeychainAuthenticating, @unchecked Sendable {
    private let settings: KeychainPrompt.Settings
    private let lock = NSLock()
    private var grant: Data?
    private var path: String?
    private var password: SecureBytes?

    /// A context prompting with `settings`.
    package init(settings: KeychainPrompt.Settings) {
        self.settings = settings
    }

    /// The environment prompts of calls without a context use: this process's, unless a test
    /// replaced it.
    package static var defaultEnvironment: PinentryEnvironment {
        environmentOverride.withLock { $0 } ?? .current
    }

    /// A replacement for `defaultEnvironment` (tests only); nil restores it.
    package static func overrideDefaultEnvironment(_ environment: PinentryEnvironment?) {
        environmentOverride.withLock { $0 = environment }
    }

    private static let environmentOverride = Mutex<PinentryEnvironment?>(nil)

    package func grant(forKeychainAt path: String) -> Data? {
        lock.withLock { self.path == path ? grant : nil }
    }

    package var applicationPassword: SecureBytes? { lock.withLock { password } }

    package func satisfy(_ constraints: AccessControlPolicy.Flags, keychain: any KeychainHandle, reason: String?) throws {
        var current = grant(forKeychainAt: keychain.path)
        var entered = applicationPassword
        var settings = settings
        if let reason { settings.reason = reason }
        try KeychainPrompt.satisfy(constraints, keychain: keychain, grant: &current, applicationPassword: &entered, settings: settings)
        lock.withLock {
            grant = current
            path = keychain.path
            password = entered
        }
    }
}
