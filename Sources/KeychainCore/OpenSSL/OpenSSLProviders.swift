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
    public static func initializeWithoutSystemConfiguration() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil)
    }
}
