/// Public access to the engine's CSPRNG for the `Security` surface (`SecRandomCopyBytes`).
public enum CryptoRandom {
    /// Fills `buffer` with random bytes from OpenSSL's CSPRNG.
    ///
    /// - Throws: `KeychainError` when the generator fails.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        try SecureRandom.fill(buffer)
    }
}
