import Foundation
import KeychainCore
import KeychainService
import Security
import Synchronization

/// How commands reach keychains: which files, with what access, and how a locked keychain is
/// unlocked when a command needs it.
///
/// The tool is the user's administration tool, so it sees every access group: in-process its
/// context adds `*` to the process's own groups (adds go to the first group, as for any client);
/// through `keychaind` the daemon recognises the tool installed beside it and grants the same.
///
/// Through `keychaind` the lock state is the daemon's, shared by every client. In-process it
/// belongs to the process, and each run of the tool is a new process: a keychain with a password
/// starts locked (before its first unlock). When a command meets an item it cannot read for that
/// reason, the tool asks for the keychain's password (`password to unlock <name>: `), as macOS
/// asks to unlock a locked keychain, and goes on; with no password to read it fails with
/// errSecInteractionNotAllowed (exit status 36).
enum KeychainSession {
    /// The access context commands use when they open a keychain in-process.
    static func embeddedContext() throws -> AccessContext {
        let base = try Entitlements.currentContext()
        return AccessContext(accessGroups: base.accessGroups + ["*"])
    }

    /// The keychain a command-line argument names: a path, or a bare name in the keychain
    /// directory (`name` → `name.keychain-db`). It must exist.
    ///
    /// - Throws: `ToolError.status(errSecNoSuchKeychain, "SecKeychainOpen <name>")` (exit 50)
    ///   when it does not, and other open failures the same way.
    static func open(_ name: String) throws -> any KeychainHandle {
        do {
            let keychain = try KeychainConnector.open(path: path(of: name), create: false, context: try embeddedContext())
            argumentNames.withLock { $0[keychain.path] = name }
            return keychain
        } catch {
            throw ToolError.api("SecKeychainOpen \(name)", error)
        }
    }

    /// The default keychain (`default-keychain`); the login keychain is created on first use.
    static func openDefault() throws -> any KeychainHandle {
        do {
            let path = absolutePath(try KeychainPreferences.defaultKeychainPath)
            return try KeychainConnector.open(
                path: path, create: path == absolutePath(KeychainLocation.defaultKeychainPath), context: try embeddedContext())
        } catch {
            throw ToolError.api("SecKeychainCopyDefault", error)
        }
    }

    /// The keychains named on a command line, in order, or the search list when none is
    /// (keychains of the list that no longer exist are skipped).
    static func searchList(_ names: [String]) throws -> [any KeychainHandle] {
        guard names.isEmpty else { return try names.map(open) }
        let login = absolutePath(KeychainLocation.defaultKeychainPath)
        return try KeychainPreferences.searchList.map(absolutePath).compactMap { path in
            guard path == login || FileManager.default.fileExists(atPath: path) else { return nil }
            do {
                return try KeychainConnector.open(path: path, create: path == login, context: try embeddedContext())
            } catch {
                throw ToolError.api("SecKeychainOpen \(path)", error)
            }
        }
    }

    /// The absolute path a keychain argument names.
    static func path(of name: String) -> String { absolutePath(KeychainLocation.resolve(name)) }

    /// `path` made absolute against the current directory (dump lines show absolute paths).
    static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let base = FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
    }

    /// How prompts name `keychain`: as the command line named it, "default" for the default
    /// keychain (as macOS's `prompt_password` does), else by its path.
    static func promptName(for keychain: any KeychainHandle) -> String {
        if let name = argumentNames.withLock({ $0[keychain.path] }) { return name }
        return keychain.path == (try? KeychainPreferences.defaultKeychainPath).map(absolutePath) ? "default" : keychain.path
    }

    /// The names command lines gave the keychains opened so far, by path.
    private static let argumentNames = Mutex<[String: String]>([:])

    // MARK: - Unlocking

    /// Runs `body`; if it fails because a protection class of `keychain` is locked in this
    /// process, asks for the keychain's password (when `invocation` may), unlocks, and runs
    /// `body` once more.
    ///
    /// - Throws: what `body` threw when no password could be read; `ToolError` for a wrong one.
    static func unlockingIfNeeded<T>(_ keychain: any KeychainHandle, for invocation: Invocation, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch where isInteractionNotAllowed(error) && invocation.mayAskToUnlock
            && (try? keychain.status()).map({ $0.hasPasscode && $0.lockState != .unlocked }) == true
        {
            let name = promptName(for: keychain)
            guard var password = invocation.console.readSecret(prompt: "password to unlock \(name): ") else { throw error }
            defer { SecretWiping.wipe(&password) }
            try unlock(keychain, password: password, api: "SecKeychainUnlock \(name)")
            return try body()
        }
    }

    /// Unlocks `keychain` with `password`.
    ///
    /// - Throws: `ToolError` naming `api`: errSecAuthFailed (exit 51) for a wrong password, with
    ///   the time to wait when repeated failures impose a delay.
    static func unlock(_ keychain: any KeychainHandle, password: [UInt8], api: String) throws {
        var data = Data(password)
        defer { data.resetBytes(in: data.startIndex..<data.endIndex) }
        do {
            try keychain.unlock(passcode: data)
        } catch let error as KeychainError where error.code == .authFailed {
            let status = StatusMapping.status(for: error)
            var message = ToolError.status(status, api: api).message ?? ""
            if let delay = try? keychain.status().passcodeRetryDelay {
                message += "security: too many failed attempts; try again in \(Int(delay.rounded(.up))) seconds\n"
            }
            throw ToolError.failed(result: status, message: message)
        } catch {
            throw ToolError.api(api, error)
        }
    }

    private static func isInteractionNotAllowed(_ error: any Error) -> Bool {
        if let error = error as? KeychainError { return error.code == .interactionNotAllowed }
        if case .status(let status, _)? = error as? ToolError { return status == errSecInteractionNotAllowed }
        return false
    }
}
