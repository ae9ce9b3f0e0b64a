import Foundation

/// Why a sync operation failed. Every failure of the sync layer (the server, libpq, the
/// cryptography, the keychain) reaches callers as one of these; a message never holds a
/// connection string, an attribute value or a secret.
package struct SyncError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure; its number is how `keychaind` reports it to a client (fixed per
    /// case, never reused).
    package enum Code: UInt8, Sendable, Equatable {
        /// The server cannot be reached (connection refused, lost, authentication failed).
        case serverUnreachable = 1
        /// The server refused a statement (its SQLSTATE is in `sqlState`).
        case serverFailed = 2
        /// Another device changed the records this one was writing: nothing was written.
        case conflict = 3
        /// What the server returned is not authentic (a changed ciphertext, a record moved,
        /// an older generation, a forged device): it was refused and nothing was applied from it.
        case refused = 4
        /// This keychain has not enabled or joined sync.
        case notEnabled = 5
        /// This keychain already syncs with an account.
        case alreadyEnabled = 6
        /// The recovery secret does not open the account's escrow.
        case wrongRecoverySecret = 7
        /// The server has no sync schema, or one this version does not know.
        case schemaMismatch = 8
        /// The server holds no account for this connection's role (or already holds one).
        case noAccount = 9
        /// No trusted device approved a joining device in time: nothing was joined.
        case notApproved = 10
        /// No pending join request matches the code given to approve: nothing was approved.
        case noJoinRequest = 11
        /// A caller's argument is not valid.
        case badInput = 12
        /// The local keychain failed (its error is described in the message).
        case keychain = 13
        /// The account's keys rolled and no device this one trusts shared them with it: it was
        /// removed from the account (retrying cannot help; the background worker stops).
        case removed = 14
    }

    /// The kind of failure.
    package let code: Code
    /// What happened, for people.
    package let message: String
    /// The server's SQLSTATE when the server refused a statement.
    package let sqlState: String?

    /// A failure of kind `code`.
    package init(_ code: Code, _ message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    /// The message.
    package var description: String { message }
}
