import Foundation
import Synchronization

/// Where keychains live on disk.
public enum KeychainLocation {
    /// The default keychain's file name.
    public static let defaultKeychainName = "login.keychain-db"

    /// The user's keychain directory: in system mode (`KEYCHAIN_MODE=system`) the system
    /// daemon's directory for the calling user (`systemDirectory(for:)`), otherwise
    /// `userDirectory`.
    public static var directory: String {
        isSystemMode ? systemDirectory(for: getuid()) : userDirectory
    }

    /// `$XDG_DATA_HOME/swift-keychain`, else `~/.local/share/swift-keychain`: the user's own
    /// directory, where the user's keychains are outside system mode and where the `security`
    /// command keeps its preferences in every mode.
    public static var userDirectory: String {
        let base = FileSystem.environment("XDG_DATA_HOME")
            ?? ((FileSystem.environment("HOME") ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/share")
        return (base as NSString).appendingPathComponent("swift-keychain")
    }

    /// The environment variable that chooses how a client reaches its keychains (`embedded`,
    /// `daemon`, `system` or `auto`).
    public static let modeVariable = "KEYCHAIN_MODE"

    /// The environment variable naming the system daemon's state directory for clients, when it
    /// is not `defaultSystemStateDirectory` (the daemon's `--state-directory`).
    public static let systemStateVariable = "KEYCHAIND_STATE_DIRECTORY"

    /// Where the system daemon (`keychaind --system`) keeps every user's keychains by default.
    public static let defaultSystemStateDirectory = "/var/lib/swift-keychain"

    /// Whether `KEYCHAIN_MODE` is `system`: the keychains are the system daemon's, which a client
    /// never opens itself.
    public static var isSystemMode: Bool {
        guard let value = FileSystem.environmentBytes(modeVariable) else { return false }
        return strcmp(value, "system") == 0
    }

    /// The system daemon's directory of the keychains of `uid`: `<state directory>/<uid>`, the
    /// state directory being `KEYCHAIND_STATE_DIRECTORY`, else `/var/lib/swift-keychain`.
    public static func systemDirectory(for uid: uid_t) -> String {
        let state = FileSystem.environment(systemStateVariable) ?? defaultSystemStateDirectory
        return (state as NSString).appendingPathComponent("\(uid)")
    }

    /// The default keychain's database path (recomputed only when `XDG_DATA_HOME`, `HOME`,
    /// `KEYCHAIN_MODE` or `KEYCHAIND_STATE_DIRECTORY` change).
    public static var defaultKeychainPath: String {
        let environment = [
            FileSystem.environment("XDG_DATA_HOME"), FileSystem.environment("HOME"),
            FileSystem.environment(modeVariable), FileSystem.environment(systemStateVariable),
        ]
        return lastDefault.withLock { last in
            if let last, last.environment == environment { return last.path }
            let path = (directory as NSString).appendingPathComponent(defaultKeychainName)
            last = (environment, path)
            return path
        }
    }

    private static let lastDefault = Mutex<(environment: [String?], path: String)?>(nil)

    /// The environment variables the default keychain's path depends on, as they were when taken,
    /// compared with the current ones without building strings.
    struct Environment: Sendable {
        /// The names as literals (`modeVariable`, `systemStateVariable`), read without making C
        /// strings of them on every call.
        private static let names: [StaticString] = ["XDG_DATA_HOME", "HOME", "KEYCHAIN_MODE", "KEYCHAIND_STATE_DIRECTORY"]
        private let values: [[CChar]?]

        /// The variables' current values.
        init() {
            values = Self.names.map { name in
                FileSystem.environmentBytes(name).map { Array(UnsafeBufferPointer(start: $0, count: strlen($0) + 1)) }
            }
        }

        /// Whether the variables still have the values they had when this was taken.
        ///
        /// Every SecItem call asks, so the environment is read in one pass rather than by a
        /// `getenv` per name (each of which walks it): an entry counts as `getenv` counts it (the
        /// first entry of a name; an empty value reads as unset), and an entry whose first byte
        /// starts none of the names is passed over by that byte.
        var isCurrent: Bool {
            var seen = 0  // bit `index`: an entry for `names[index]` was found
            // `environ` is imported as non-optional, yet is null after `clearenv`: read as an
            // optional pointer (the same bits), a null one is nil.
            let table = unsafeBitCast(environ, to: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self)
            if var entry = table {
                while let text = entry.pointee {
                    entry += 1
                    let first = text.pointee
                    guard first == 0x58 || first == 0x48 || first == 0x4B else { continue }  // X, H, K
                    for index in Self.names.indices where seen & (1 << index) == 0 {
                        let length = Self.names[index].utf8CodeUnitCount
                        guard strncmp(text, FileSystem.cString(Self.names[index]), length) == 0, text[length] == 0x3D else { continue }
                        seen |= 1 << index
                        let current = text + length + 1
                        switch (current.pointee == 0 ? nil : current, values[index]) {
                        case (nil, nil): break
                        case (let current?, let value?): if value.withUnsafeBufferPointer({ strcmp(current, $0.baseAddress!) }) != 0 { return false }
                        default: return false
                        }
                        break
                    }
                }
            }
            for index in values.indices where seen & (1 << index) == 0 && values[index] != nil { return false }
            return true
        }
    }

    /// The path of the keybag that belongs to the database at `path`.
    static func keybagPath(forDatabase path: String) -> String { path + ".keybag" }

    /// The path of the root-key file a version-1 keychain (the project's first storage format)
    /// kept beside its database; the upgrade removes it.
    static func legacyKeyFilePath(forDatabase path: String) -> String { path + ".key" }

    /// The name of the `security` command's preferences (search list, default keychain) in the
    /// keychain directory.
    public static let preferencesFileName = "preferences.plist"

    /// The files SQLite keeps for the database at `path`: the database, its write-ahead log and
    /// its shared-memory index (SQLite creates the last two with the database's mode).
    static func databaseFiles(forDatabase path: String) -> [(path: String, role: FileRole)] {
        [(path, .database), (path + "-wal", .writeAheadLog), (path + "-shm", .sharedMemory)]
    }

    /// Every file of the keychain whose database is at `path`: the keybag (and a new keybag
    /// waiting beside it while the passcode changes), the database files and a version-1 key
    /// file, keybag first (the order a deletion removes them in).
    static func files(forDatabase path: String) -> [(path: String, role: FileRole)] {
        [(keybagPath(forDatabase: path), .keybag), (Keybag.stagedPath(keybagPath(forDatabase: path)), .keybag)]
            + databaseFiles(forDatabase: path) + [(legacyKeyFilePath(forDatabase: path), .legacyKey)]
            + [(HolderLock.path(forDatabase: path), .holder)]
    }

    /// The files the keychains of `directory` share: the device key and the preferences.
    static func sharedFiles(inDirectory directory: String) -> [(path: String, role: FileRole)] {
        [((directory as NSString).appendingPathComponent(FileDeviceKey.fileName), .deviceKey),
         ((directory as NSString).appendingPathComponent(preferencesFileName), .preferences)]
    }

    /// Refuses the keychain whose database is at `path` unless its directory and every file of
    /// it and of the directory that exists is private to the calling user (`FileSystem`'s rule):
    /// checked before any of them is read, created or written.
    ///
    /// - Throws: `errSecWrPerm` naming the first file that is not private and the fix.
    static func requirePrivate(database path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileSystem.requirePrivateDirectory(directory)
        for file in files(forDatabase: path) + sharedFiles(inDirectory: directory) {
            try FileSystem.requirePrivate(path: file.path, role: file.role)
        }
    }

    /// Resolves a keychain named on a command line: a path as given, or a bare name inside the
    /// keychain directory (`name` → `name.keychain-db`).
    public static func resolve(_ name: String) -> String {
        if name.contains("/") { return name }
        let file = name.hasSuffix(".keychain-db") ? name : name + ".keychain-db"
        return (directory as NSString).appendingPathComponent(file)
    }
}
