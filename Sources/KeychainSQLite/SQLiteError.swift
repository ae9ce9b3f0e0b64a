internal import CSQLite

/// A failed SQLite call: the result code and SQLite's message (which never includes bound values).
///
/// It stays with the storage code that calls SQLite, which turns it into a `KeychainError` where
/// it leaves (`SQLiteError.keychainError`); the wrapper itself knows nothing of the engine's errors.
package struct SQLiteError: Error {
    /// What kind of failure a result code is, in words SQLite's callers decide by.
    package enum Kind: Equatable {
        /// A constraint (such as a unique index) refused the change (SQLITE_CONSTRAINT).
        case constraint
        /// The database cannot be written (SQLITE_READONLY).
        case readOnly
        /// SQLite ran out of memory (SQLITE_NOMEM).
        case outOfMemory
        /// Reading or writing a file failed (SQLITE_IOERR).
        case inputOutput
        /// The disk is full (SQLITE_FULL).
        case diskFull
        /// The file is damaged or not a database (SQLITE_CORRUPT, SQLITE_NOTADB).
        case damaged
        /// Another connection held a lock past the wait limit (SQLITE_BUSY, SQLITE_LOCKED).
        case busy
        /// The database file could not be opened (SQLITE_CANTOPEN).
        case cannotOpen
        /// Any other result.
        case other
    }

    /// SQLite's (extended) result code.
    package let code: Int32
    /// SQLite's message for it.
    package let message: String

    /// An error for SQLite result `code` (extended codes included) with SQLite's message.
    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of an extended code).
    package var primary: Int32 { code & 0xff }

    /// Whether a constraint refused the change.
    package var isConstraint: Bool { kind == .constraint }

    /// The kind of failure the primary result code stands for.
    package var kind: Kind {
        switch primary {
        case SQLITE_CONSTRAINT: return .constraint
        case SQLITE_READONLY: return .readOnly
        case SQLITE_NOMEM: return .outOfMemory
        case SQLITE_IOERR: return .inputOutput
        case SQLITE_FULL: return .diskFull
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .damaged
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CANTOPEN: return .cannotOpen
        default: return .other
        }
    }
}
