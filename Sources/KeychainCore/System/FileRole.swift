/// What a file is to the keychain: named in the errors about it, and deciding which checks a
/// write makes.
package enum FileRole: String, Sendable {
    /// The directory holding keychains, their keybags, the device key and the preferences.
    case directory = "keychain directory"
    /// A keychain's SQLite database (`<name>.keychain-db`).
    case database = "keychain database"
    /// SQLite's write-ahead log beside the database (`-wal`).
    case writeAheadLog = "keychain's write-ahead log (-wal)"
    /// SQLite's shared-memory index beside the database (`-shm`).
    case sharedMemory = "keychain's shared-memory index (-shm)"
    /// A keychain's keybag (`<name>.keychain-db.keybag`).
    case keybag = "keybag"
    /// The directory's device key (`device.key`).
    case deviceKey = "device key (device.key)"
    /// The `security` command's search list and default keychain (`preferences.plist`).
    case preferences = "preferences file (preferences.plist)"
    /// The file whose lock says who holds a keychain (`<name>.keychain-db.holder`).
    case holder = "holder file (.holder)"
    /// A version-1 keychain's root-key file (`<name>.keychain-db.key`).
    case legacyKey = "version-1 key file (.key)"
    /// The secret key of biometric domain-state hashes (`biometry-state.key`).
    case biometryStateKey = "biometric domain-state key (biometry-state.key)"
    /// The count of failed fingerprint matches in a row (`biometry-failures`).
    case biometryFailures = "biometric failure count (biometry-failures)"
    /// A backup file being written.
    case backup = "backup file"
    /// A file `security export -o` writes.
    case export = "export file"
    /// A file `security dump-keychain -o` writes.
    case dump = "dump file"

    /// Whether the file belongs to the keychain directory (so a file already at its path is
    /// checked before it is replaced), rather than being an output whose path the user chose.
    var isKeychainFile: Bool {
        switch self {
        case .backup, .export, .dump: return false
        default: return true
        }
    }
}
