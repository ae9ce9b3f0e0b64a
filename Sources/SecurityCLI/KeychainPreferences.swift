import Foundation
import KeychainCore

/// The user's keychain preferences, as macOS keeps them in `com.apple.security.plist`: the
/// keychain search list and the default keychain. They live in the user's own
/// `<keychain directory>/preferences.plist` (`KeychainLocation.userDirectory`, also in system
/// mode, where the keychains are the system daemon's) and concern the `security` command only:
/// `SecItem…` always uses the login keychain, as Apple's data-protection keychain ignores them.
///
/// The file is a keychain file like the others: it is read only when it and the directory are
/// private to the calling user (else errSecWrPerm, naming the file and the fix), since whoever
/// could change it could choose the keychain that the user's secrets go to.
enum KeychainPreferences {
    private static let searchListKey = "SearchList"
    private static let defaultKeychainKey = "DefaultKeychain"

    /// The preference file.
    static var path: String { (KeychainLocation.userDirectory as NSString).appendingPathComponent(KeychainLocation.preferencesFileName) }

    /// The default keychain: the one set with `default-keychain -s`, else the login keychain.
    ///
    /// - Throws: `KeychainError` errSecWrPerm when the file or its directory is not private.
    static var defaultKeychainPath: String {
        get throws { (try read()[defaultKeychainKey] as? String) ?? KeychainLocation.defaultKeychainPath }
    }

    /// The search list: the one set with `list-keychains -s` (or grown by `create-keychain`),
    /// else the default keychain alone.
    ///
    /// - Throws: `KeychainError` errSecWrPerm when the file or its directory is not private.
    static var searchList: [String] {
        get throws {
            let preferences = try read()
            return (preferences[searchListKey] as? [String])
                ?? [(preferences[defaultKeychainKey] as? String) ?? KeychainLocation.defaultKeychainPath]
        }
    }

    /// Sets (or with nil, resets to the login keychain) the default keychain.
    static func setDefaultKeychain(_ path: String?) throws {
        var preferences = try read()
        preferences[defaultKeychainKey] = path
        try write(preferences)
    }

    /// Replaces the search list.
    static func setSearchList(_ paths: [String]) throws {
        var preferences = try read()
        preferences[searchListKey] = paths
        try write(preferences)
    }

    /// Appends `path` to the search list unless it is there (a created keychain joins it).
    static func addToSearchList(_ path: String) throws {
        let list = try searchList
        if !list.contains(path) { try setSearchList(list + [path]) }
    }

    /// Removes `path` from the search list, and from being the default (a deleted keychain).
    static func forget(_ path: String) throws {
        var preferences = try read()
        preferences[searchListKey] = try searchList.filter { $0 != path }
        if preferences[defaultKeychainKey] as? String == path { preferences[defaultKeychainKey] = nil }
        try write(preferences)
    }

    /// The preferences; empty when there is no file or it is not a property list.
    private static func read() throws -> [String: Any] {
        guard let data = try FileSystem.readPrivate(path, role: .preferences) else { return [:] }
        try FileSystem.requirePrivateDirectory(KeychainLocation.userDirectory)
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            return [:]
        }
        return plist
    }

    /// Writes the file atomically: a private file (0600 before its first byte) renamed into
    /// place, in the private keychain directory (created 0700 if missing).
    private static func write(_ preferences: [String: Any]) throws {
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: preferences, format: .xml, options: 0)
            try FileSystem.makePrivateDirectory(KeychainLocation.userDirectory)
            try FileSystem.replaceAtomically(path, contents: data, role: .preferences)
        } catch let error as KeychainError where error.code == .writePermission {
            throw error
        } catch {
            throw ToolError.failed(result: 1, message: "security: could not write the keychain preferences\n")
        }
    }
}
