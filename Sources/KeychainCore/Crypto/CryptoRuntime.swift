import KeychainCrypto

/// Process-wide choices about the crypto library, for a program that owns its process.
public enum CryptoRuntime {
    /// Initialises OpenSSL without reading the system's `openssl.cnf`: the `security` command
    /// uses the algorithms of the `default` provider (and loads `legacy` itself for old PKCS#12
    /// files), so parsing the configuration is a cost without an effect on its results (a fifth of
    /// OpenSSL's start-up in a short process). Call it first, before anything uses OpenSSL; a
    /// library never calls it, since it would change how the host process's other OpenSSL users
    /// are configured.
    ///
    /// - Parameter legacyNames: whether OpenSSL's table of legacy algorithm names will be needed.
    ///   Its PKCS#12, PEM and by-name digest look-ups use it; reading and writing keychain items
    ///   does not (AES-GCM, the DRBG and PBKDF2 come from the provider by their own names), and
    ///   building the table is a tenth of a short process that only does that. Without it, those
    ///   look-ups fail for the rest of the process.
    public static func initializeWithoutSystemConfiguration(legacyNames: Bool = true) {
        OpenSSLProviders.initializeWithoutSystemConfiguration(legacyNames: legacyNames)
    }
}
