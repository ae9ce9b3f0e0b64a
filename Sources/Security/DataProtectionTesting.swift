import Foundation
@_spi(Testing) import KeychainCore
import KeychainService

/// Hooks for testing Data Protection through the Security API: they act on the process's
/// default keychain (the one `SecItem…` uses) as a device's passcode settings and lock screen
/// would. Not part of Apple's API; tests import them with `@_spi(Testing) import Security`.
@_spi(Testing)
public enum SecDataProtectionTesting {
    /// Opens the default keychain with a cheap passcode derivation (1,000 PBKDF2 iterations)
    /// instead of the calibrated one. Call it before any other call in a fresh keychain directory.
    /// Through `keychaind` it changes nothing: the daemon opens keychains with its own costs.
    public static func useFastKeyDerivation() -> OSStatus {
        StatusMapping.run {
            guard try KeychainConnector.daemonClient() == nil else { return }
            _ = try Keychain.open(
                path: KeychainLocation.defaultKeychainPath,
                options: KeychainOptions(passcodeIterations: 1_000, backupWorkFactor: 10))
        }
    }

    /// Sets, changes or removes the device passcode (nil or empty: none).
    ///
    /// - Returns: `errSecSuccess`, or `errSecAuthFailed` when `old` is wrong.
    public static func setPasscode(_ new: Data?, old: Data?) -> OSStatus {
        StatusMapping.run { try ProcessKeychain.resolve().changePasscode(from: old, to: new) }
    }

    /// Locks the device: class A items become unavailable.
    public static func lock() -> OSStatus {
        StatusMapping.run { try ProcessKeychain.resolve().lock() }
    }

    /// Unlocks the device with its passcode.
    ///
    /// - Returns: `errSecSuccess`, or `errSecAuthFailed` for a wrong passcode.
    public static func unlock(_ passcode: Data) -> OSStatus {
        StatusMapping.run { try ProcessKeychain.resolve().unlock(passcode: passcode) }
    }

    /// Acts as if the device had restarted: the default keychain's keys are dropped and the next
    /// call opens it afresh (before the first unlock, when a passcode is set). In-process this
    /// forgets the process's instance; through `keychaind` it ends the daemon (which holds the
    /// keys for every client) and waits until it is gone; the next call starts a new one.
    public static func restart() {
        guard let client = try? KeychainConnector.daemonClient() else {
            Keychain.forgetOpenInstance(path: KeychainLocation.defaultKeychainPath)
            return
        }
        client.stopDaemon()
    }
}
