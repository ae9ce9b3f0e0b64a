import KeychainCrypto

extension OpenSSLError {
    /// The engine's error for this OpenSSL failure: input that does not authenticate or parse is
    /// `.decode`, a wrong password `.authFailed`, a parameter the operation does not take
    /// `.param`, and OpenSSL's own failures `.internal` (with OpenSSL's codes in the reason).
    var keychainError: KeychainError {
        switch kind {
        case .authenticationFailed, .malformedInput: return KeychainError(.decode, reason)
        case .wrongPassword: return KeychainError(.authFailed, reason)
        case .badParameter: return KeychainError(.param, reason)
        case .internalFailure: return KeychainError(.internal, description)
        }
    }
}

/// Runs `body`, which calls into `KeychainCrypto`, and throws the engine's error for an
/// `OpenSSLError` it throws; any other error passes unchanged. The engine's crypto types call
/// the module through this, so no `OpenSSLError` leaves them.
func withEngineErrors<R>(_ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as OpenSSLError {
        throw error.keychainError
    }
}
