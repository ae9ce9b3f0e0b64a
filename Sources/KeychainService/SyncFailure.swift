import Foundation

/// Why a sync operation `keychaind` ran failed (`ServiceOperation.syncNow`, `.syncStatus`): the
/// sync engine's error as the wire carries it (`u8` code, `string` message, `string?` SQLSTATE).
/// Its message never holds a connection string, an attribute value or a secret.
public struct SyncFailure: Error, Sendable, Equatable {
    /// The sync engine's code for the kind of failure (`SyncError.Code`'s number).
    public var code: UInt8
    /// What happened, for people.
    public var message: String
    /// The server's SQLSTATE when the server refused a statement.
    public var sqlState: String?

    /// A failure of kind `code`.
    public init(code: UInt8, message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }
}

extension SyncFailure: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        writer.u8(code)
        writer.string(message)
        writer.optional(sqlState) { $0.string($1) }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        self.init(code: try reader.u8(), message: try reader.string(), sqlState: try reader.optional { try $0.string() })
    }
}
