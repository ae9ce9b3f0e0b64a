import Foundation
import KeychainCore

/// The user's keychain preferences, as macOS keeps them in `com.apple.security.plist`: the
/// keychain search list and the default keychain. They live in
/// `<keychain directory>/preferences.plist` (0600) and concern the `security` command only:
/// `SecItem…` always uses the login keychain, as Apple's data-protection keychain ignores them.
enum KeychainPreferences {
    private static let searchListKey = "SearchList"
    private static let defaultKeychainKey = "DefaultKeychain"

    /// The preference file.
    static var path: String { (KeychainLocation.directory as NSString).appendingPathComponent("preferences.plist") }

    /// The default keychain: the one set with `default-keychain -s`, else the login keychain.
    static var defaultKeychainPath: String {
        (read()[defaultKeychainKey] as? String) ?? KeychainLocation.defaultKeychainPath
    }

    /// The search list: the one set with `list-keychains -s` (or grown by `create-keychain`),
    /// else the default keychain alone.
    static var searchList: [String] {
        (read()[searchListKey] as? [String]) ?? [defaultKeychainPath]
    }

    /// Sets (or with nil, resets to the login keychain) the default keychain.
    static func setDefaultKeychain(_ path: String?) throws {
        var preferences = read()
        preferences[defaultKeychainKey] = path
        try write(preferences)
    }

    /// Replaces the search list.
    static func setSearchList(_ paths: [String]) throws {
        var preferences = read()
        preferences[searchListKey] = paths
        try write(preferences)
    }

    /// Appends `path` to the search list unless it is there (a created keychain joins it).
    static func addToSearchList(_ path: String) throws {
        let list = searchList
        if !list.contains(path) { try setSearchList(list + [path]) }
    }

    /// Removes `path` from the search list, and from being the default (a deleted keychain).
    static func forget(_ path: String) throws {
        var preferences = read()
        preferences[searchListKey] = searchList.filter { $0 != path }
        if preferences[defaultKeychainKey] as? String == path { preferences[defaultKeychainKey] = nil }
        try write(preferences)
    }

    private static func read() -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { return [:] }
        return plist
    }

    /// Writes the file atomically (a new 0600 file renamed into place).
    private static func write(_ preferences: [String: Any]) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: KeychainLocation.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let data = try PropertyListSerialization.data(fromPropertyList: preferences, format: .xml, options: 0)
            let temporary = path + ".tmp-\(UUID().uuidString)"
            guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            guard FileDescriptor.move(temporary, over: path) else {
                try? FileManager.default.removeItem(atPath: temporary)
                throw CocoaError(.fileWriteUnknown)
            }
        } catch {
            throw ToolError.failed(result: 1, message: "security: could not write the keychain preferences\n")
        }
    }
}
