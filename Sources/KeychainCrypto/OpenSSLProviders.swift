internal import COpenSSL
import Synchronization

/// OpenSSL's providers. PKCS#12 files written by older tools (and by macOS's export) protect
/// their contents with RC2 or 3DES and MAC them with SHA-1, algorithms OpenSSL 3 keeps in its
/// `legacy` provider. Loading any provider stops OpenSSL from loading `default` on its own, so
/// both are loaded, once per process.
package enum OpenSSLProviders {
    private static let loaded = Mutex<Bool?>(nil)

    /// Loads `default` and `legacy` into the default library context.
    ///
    /// - Returns: whether the legacy provider is available (Debian ships it in libssl3).
    @discardableResult
    package static func loadLegacy() -> Bool {
        loaded.withLock { state in
            if let state { return state }
            let hasDefault = COpenSSL_OSSL_PROVIDER_load(nil, "default") != nil
            let hasLegacy = COpenSSL_OSSL_PROVIDER_load(nil, "legacy") != nil
            COpenSSL_ERR_clear_error()
            state = hasDefault && hasLegacy
            return hasDefault && hasLegacy
        }
    }

    /// Initialises OpenSSL without reading the system's `openssl.cnf`, and without its table of
    /// legacy algorithm names unless `legacyNames` (its PKCS#12, PEM and by-name digest look-ups
    /// need the table; AES-GCM, the DRBG and PBKDF2 do not). It changes the whole process's
    /// OpenSSL, so only a program that owns its process calls it, before anything uses OpenSSL.
    /// The initialisation happens when libcrypto is first loaded: a process that never needs
    /// cryptography (a client of keychaind) never loads it.
    package static func initializeWithoutSystemConfiguration(legacyNames: Bool) {
        var options = UInt64(OPENSSL_INIT_NO_LOAD_CONFIG)
        if !legacyNames { options |= UInt64(OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS) }
        COpenSSL_initializeOnLoad(options)
    }
}
