import Testing

@testable import KeychainCore
import KeychainSQLite

/// SQLite's failures leave the storage code as the engine's errors, by their primary result
/// code (SQLite's documented values, extended codes included).
@Suite("SQLite failures as engine errors")
struct SQLiteErrorTests {
    @Test(
        "Each SQLite result becomes the engine code Apple's keychain gives it",
        arguments: [
            (19, .duplicateItem), (2067, .duplicateItem),  // SQLITE_CONSTRAINT, SQLITE_CONSTRAINT_UNIQUE
            (8, .readOnly), (1032, .readOnly),  // SQLITE_READONLY, SQLITE_READONLY_DBMOVED
            (7, .allocate),  // SQLITE_NOMEM
            (10, .io), (5898, .io),  // SQLITE_IOERR, SQLITE_IOERR_DELETE_NOENT
            (13, .diskFull),  // SQLITE_FULL
            (11, .invalidKeychain), (26, .invalidKeychain),  // SQLITE_CORRUPT, SQLITE_NOTADB
            (5, .notAvailable), (517, .notAvailable), (6, .notAvailable),  // SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED
            (14, .notAvailable),  // SQLITE_CANTOPEN
            (1, .notAvailable), (21, .notAvailable),  // SQLITE_ERROR, SQLITE_MISUSE
        ] as [(Int32, KeychainError.Code)])
    func resultBecomesEngineCode(result: Int32, code: KeychainError.Code) {
        let error = SQLiteError(code: result, message: "message")
        #expect(error.keychainError.code == code)
        #expect(error.isConstraint == (code == .duplicateItem))
    }

    @Test("Only an unclassified result repeats SQLite's message in the reason")
    func messageOnlyForUnclassifiedResults() {
        #expect(SQLiteError(code: 1, message: "no such table: items").keychainError.reason == "SQLite error 1: no such table: items")
        for result: Int32 in [19, 8, 7, 10, 13, 11, 26, 5, 6, 14] {
            #expect(!SQLiteError(code: result, message: "the message").keychainError.reason.contains("the message"))
        }
    }
}
