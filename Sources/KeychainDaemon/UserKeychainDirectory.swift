import Foundation
import KeychainCore

#if canImport(Glibc)
import Glibc
#endif

/// In system mode, the one directory whose keychains a user's connection may name:
/// `<state directory>/<uid>/`, made and written by the daemon alone.
///
/// A path a client sends is accepted only when it is a file name directly in that directory,
/// spelled plainly: no `.` or `..` component, no repeated or trailing `/`, no subdirectory, and
/// not a symbolic link where it exists. Anything else is refused with errSecNoSuchKeychain
/// before a file is touched, so a connection never reaches another user's keychain, even under a
/// name that would lead there.
struct UserKeychainDirectory: Sendable {
    /// The directory, absolute, without a trailing `/`.
    let path: String
    /// The state directory holding every user's directory: files a client names for the daemon
    /// to read (an executable to register) must be outside it.
    let stateDirectory: String

    /// The default keychain of the user.
    var defaultKeychainPath: String { path + "/" + KeychainLocation.defaultKeychainName }

    /// Refuses `candidate` unless it names a file directly in this directory.
    ///
    /// - Throws: errSecNoSuchKeychain naming the directory a keychain must be in.
    func requireInside(_ candidate: String) throws {
        let refusal = KeychainError(.noSuchKeychain, "the system keychain service keeps this user's keychains only in \(path)")
        guard candidate.hasPrefix(path + "/") else { throw refusal }
        let name = candidate.dropFirst(path.count + 1)
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else { throw refusal }
        var info = stat()
        if lstat(candidate, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK { throw refusal }
    }

    /// Refuses an executable a client asks the daemon to read (to register it) unless it resolves outside the state
    /// directory: the daemon reads what the service user can, which includes every user's
    /// keychains.
    ///
    /// - Throws: errSecMissingEntitlement when the file is inside the state directory or cannot
    ///   be resolved.
    func requireOutsideState(_ file: String) throws {
        guard let resolved = realpath(file, nil) else {
            throw KeychainError(.missingEntitlement, "the file cannot be resolved")
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        if real == stateDirectory || real.hasPrefix(stateDirectory + "/") {
            throw KeychainError(.missingEntitlement, "the system keychain service does not read files of its state directory for a client")
        }
    }
}
