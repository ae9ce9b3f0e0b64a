import Foundation
import KeychainCore

/// How commands reach keychains: which files, and with what access.
///
/// The tool is the user's administration tool, so it sees every access group (its context adds
/// `*` to the process's own groups; adds go to the first group, as for any client).
enum KeychainSession {
    /// The access context commands use.
    ///
    /// - Throws: `ToolError.status` (api `api`) when the entitlements file cannot be read.
    static func context(api: String) throws -> AccessContext {
        do {
            let base = try Entitlements.currentContext()
            return AccessContext(accessGroups: base.accessGroups + ["*"])
        } catch {
            throw ToolError.api(api, error)
        }
    }

    /// The keychain a command-line argument names: a path, or a bare name in the keychain
    /// directory (`name` → `name.keychain-db`). It must exist.
    ///
    /// - Throws: `ToolError.status(errSecNoSuchKeychain, "SecKeychainOpen <name>")` (exit 50)
    ///   when it does not, and other open failures the same way.
    static func open(_ name: String) throws -> Keychain {
        do {
            return try Keychain.open(path: absolutePath(KeychainLocation.resolve(name)), create: false)
        } catch {
            throw ToolError.api("SecKeychainOpen \(name)", error)
        }
    }

    /// The default keychain, created on first use.
    static func openDefault() throws -> Keychain {
        do {
            return try Keychain.open(path: absolutePath(KeychainLocation.defaultKeychainPath), create: true)
        } catch {
            throw ToolError.api("SecKeychainCopyDefault", error)
        }
    }

    /// The keychains named on a command line, in order, or the default keychain when none is.
    static func searchList(_ names: [String]) throws -> [Keychain] {
        names.isEmpty ? [try openDefault()] : try names.map(open)
    }

    /// `path` made absolute against the current directory (dump lines show absolute paths).
    static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let base = FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
    }
}
