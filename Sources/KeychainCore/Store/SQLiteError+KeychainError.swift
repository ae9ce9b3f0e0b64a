import KeychainSQLite
extension SQLiteError {
    /// The engine's error for this SQLite failure, as the storage code throws it where SQLite's
    /// failures leave it: the codes Apple's keychain gives the same SQLite results, with
    /// SQLITE_FULL reported as a full disk.
    var keychainError: KeychainError {
        switch kind {
        case .constraint: return KeychainError(.duplicateItem, "the item's primary key is already in use")
        case .readOnly: return KeychainError(.readOnly, "the keychain database is read-only")
        case .outOfMemory: return KeychainError(.allocate, "SQLite ran out of memory")
        case .inputOutput: return KeychainError(.io, "SQLite I/O error \(code)")
        case .diskFull: return KeychainError(.diskFull, "the disk holding the keychain is full")
        case .damaged: return KeychainError(.invalidKeychain, "the keychain database is damaged")
        case .busy: return KeychainError(.notAvailable, "the keychain stayed busy past the wait limit")
        case .cannotOpen: return KeychainError(.notAvailable, "the keychain database could not be opened")
        case .other: return KeychainError(.notAvailable, "SQLite error \(code): \(message)")
        }
    }
}
