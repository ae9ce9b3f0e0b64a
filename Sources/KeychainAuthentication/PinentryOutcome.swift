import KeychainCrypto

/// How a pinentry prompt ended.
package enum PinentryOutcome: Sendable {
    /// The user entered a secret (possibly empty), held in memory zeroed when released.
    case entered(SecureBytes)
    /// Every answer the user entered was refused by the prompt's check; `reason` is the last
    /// refusal's (never a secret).
    case rejected(reason: String)
    /// The user cancelled the prompt (pinentry's `ERR 83886179 Operation cancelled`).
    case cancelled
    /// No prompt could be shown: no pinentry program, no terminal or display, a program that
    /// failed or spoke something other than Assuan, or a prompt left unanswered past its time
    /// (the program is killed then). `reason` names the cause, never a secret.
    case unavailable(reason: String)
    /// The caller withdrew the prompt (`LAContext.invalidate()`); the program was killed.
    case interrupted
}
