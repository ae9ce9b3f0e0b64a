internal import COpenSSL
import Synchronization

/// OpenSSL's providers. PKCS#12 files written by older tools (and by macOS's export) protect
/// their contents with RC2 or 3DES and MAC them with SHA-1, algorithms OpenSSL 3 keeps in its
/// `legacy` provider. Loading any provider stops OpenSSL from loading `default` on its own, so
/// both are loaded, once per process.
enum OpenSSLProviders {
    private static let loaded = Mutex<Bool?>(nil)

    /// Loads `default` and `legacy` into the default library context.
    ///
    /// - Returns: whether the legacy provider is available (Debian ships it in libssl3).
    @discardableResult
    static func loadLegacy() -> Bool {
        loaded.withLock { state in
            if let state { return state }
            let hasDefault = OSSL_PROVIDER_load(nil, "default") != nil
            let hasLegacy = OSSL_PROVIDER_load(nil, "legacy") != nil
            ERR_clear_error()
            state = hasDefault && hasLegacy
            return hasDefault && hasLegacy
        }
    }
}

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
        var options = UInt64(OPENSSL_INIT_NO_LOAD_CONFIG)
        if !legacyNames { options |= UInt64(OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS) }
        _ = OPENSSL_init_crypto(options, nil)
    }
}
