import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainCrypto

/// Runs a keychain call that may meet items whose access control needs the user: the request
/// carries the grant of the caller's context (`kSecUseAuthenticationContext`; without one, a
/// context made for this call, so each such call asks), and when the keychain answers that it
/// needs authentication, the context asks the user, the keychain verifies, and the call is made
/// again with the grant. The keychain alone decides whether the grant suffices.
package enum AuthenticatedCall {
    /// The reason prompts show when the caller gives none.
    static let defaultReason = "access an item protected by its access control"

    /// How many times the user may be asked in one call (one per constraint at most).
    static let maximumRounds = 4

    /// Calls `body` with `request`, authenticating and calling again as the keychain asks, with
    /// the context the dictionary names (`kSecUseAuthenticationContext`), or one for this call.
    static func run<T>(
        _ request: ItemRequest, entries: RequestEntries, keychain: any KeychainHandle, _ body: (ItemRequest) throws -> T
    ) throws -> T {
        try run(request, context: authenticator(in: entries), reason: reason(in: entries), keychain: keychain, body)
    }

    /// Calls `body` with `request`, authenticating through `context` (nil: one made for this call,
    /// prompting in this process's environment, when the keychain first asks) and calling again
    /// as the keychain asks.
    package static func run<T>(
        _ request: ItemRequest, context: (any KeychainAuthenticating)?, reason: String?, keychain: any KeychainHandle,
        _ body: (ItemRequest) throws -> T
    ) throws -> T {
        try run(authentication: request.authentication, context: context, reason: reason, keychain: keychain) { authentication in
            var request = request
            request.authentication = authentication
            return try body(request)
        }
    }

    /// Calls `body` with `authentication` (completed from `context`), authenticating through
    /// `context` (nil: one made for this call, when the keychain first asks) and calling again
    /// with the new grant as the keychain asks: for requests other than item requests (a use of
    /// a key the keychain holds).
    package static func run<T>(
        authentication: ItemAuthentication, context: (any KeychainAuthenticating)?, reason: String?,
        keychain: any KeychainHandle, _ body: (ItemAuthentication) throws -> T
    ) throws -> T {
        var authentication = authentication
        if let context {
            authentication.grant = context.grant(forKeychainAt: keychain.path)
            if let password = context.applicationPassword { authentication.applicationPassword = Data.zeroingCopy(of: password) }
        }
        defer { authentication.applicationPassword?.wipe() }
        // A call's own context (this process's environment and name) is made only when the
        // keychain asks for authentication: most calls never need one.
        var asking = context
        for _ in 0..<maximumRounds {
            do {
                return try body(authentication)
            } catch let error as KeychainError where error.code == .authenticationNeeded {
                let context = asking ?? oneCall()
                asking = context
                try context.satisfy(error.constraints ?? [], keychain: keychain, reason: reason)
                authentication.grant = context.grant(forKeychainAt: keychain.path)
                authentication.applicationPassword?.wipe()
                authentication.applicationPassword = context.applicationPassword.map { Data.zeroingCopy(of: $0) }
            }
        }
        throw KeychainError(.authFailed, "the item's access control was not satisfied")
    }

    /// The context the dictionary names (nil: none, so one is made for the call if needed).
    static func authenticator(in entries: RequestEntries) -> (any KeychainAuthenticating)? {
        if case .authenticationContext(let context)? = entries[authenticationContextKey] { return context }
        return nil
    }

    /// A context for one call, prompting in this process's environment.
    private static func oneCall() -> any KeychainAuthenticating {
        OneCallAuthentication(
            settings: KeychainPrompt.Settings(
                environment: OneCallAuthentication.defaultEnvironment, callerName: CallingProgram.current,
                reason: defaultReason))
    }

    /// `kSecUseOperationPrompt`, when given.
    static func reason(in entries: RequestEntries) -> String? {
        if case .string(let prompt)? = entries[operationPromptKey] { return prompt }
        return nil
    }

    /// `kSecUseAuthenticationContext` and `kSecUseOperationPrompt` as the entries name them, made
    /// once (each call looks them up).
    private static let authenticationContextKey = kSecUseAuthenticationContext as String
    private static let operationPromptKey = kSecUseOperationPrompt as String
}
