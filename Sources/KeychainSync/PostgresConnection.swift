internal import CLibPQ
import Foundation

/// One connection to a PostgreSQL server: libpq wrapped once. Statements take typed parameters
/// (`PostgresValue`; bytes in binary format, never spliced into SQL), results come back as
/// `PostgresRows`, and every failure is a `SyncError` whose message is the server's primary
/// message only (libpq's details can quote the values of a row).
///
/// A connection is used by one thread at a time (libpq's rule); it is closed when released.
package final class PostgresConnection {
    private let handle: OpaquePointer

    /// Connects with a libpq connection string (`host=… port=… user=… dbname=…`).
    ///
    /// - Throws: `SyncError.badInput` for a malformed string, `.serverUnreachable` (the message
    ///   never repeats the connection string, which may hold a password; also when libpq itself
    ///   cannot be loaded).
    package init(_ conninfo: String) throws {
        var reason = [CChar](repeating: 0, count: 256)
        guard clibpq_load(&reason, reason.count) == 0 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SyncError(.serverUnreachable, "sync needs libpq (Debian's libpq5), which could not be loaded: \(text)")
        }
        // libpq's parse errors quote the words around the mistake, which may be a password.
        var parseError: UnsafeMutablePointer<CChar>?
        guard let parsed = clibpq_PQconninfoParse(conninfo, &parseError) else {
            if let parseError { clibpq_PQfreemem(parseError) }
            throw SyncError(.badInput, "the connection string is malformed")
        }
        clibpq_PQconninfoFree(parsed)
        guard let connection = clibpq_PQconnectdb(conninfo) else {
            throw SyncError(.serverUnreachable, "cannot connect to the sync server: libpq is out of memory")
        }
        guard clibpq_PQstatus(connection) == CONNECTION_OK else {
            let message = Self.firstLine(clibpq_PQerrorMessage(connection))
            clibpq_PQfinish(connection)
            throw SyncError(.serverUnreachable, "cannot connect to the sync server: \(message)")
        }
        handle = connection
        // The server's notices ("already exists, skipping") would go to standard error.
        try execute("SET client_min_messages = warning")
    }

    deinit {
        clibpq_PQfinish(handle)
    }

    /// The server's version number (150018 for 15.18).
    package var serverVersion: Int { Int(clibpq_PQserverVersion(handle)) }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, ….
    ///
    /// - Returns: the rows it returned and how many it changed.
    /// - Throws: `SyncError.serverFailed` with the SQLSTATE when the server refuses it;
    ///   `.serverUnreachable` when the connection is lost.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresRows {
        let encoded = parameters.map(\.encoded)
        let types = parameters.map { Oid($0.typeOID) }
        let lengths = encoded.map { Int32($0?.bytes.count ?? 0) }
        let formats = encoded.map { Int32($0?.binary == true ? 1 : 0) }
        // Each value is a separate allocation with a terminating zero (text parameters are C
        // strings), freed once the statement has run; byte values are wiped first.
        let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { value in
            guard let value else { return nil }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: value.bytes.count + 1)
            for (index, byte) in value.bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            buffer[value.bytes.count] = 0
            return buffer
        }
        defer {
            for (buffer, value) in zip(buffers, encoded) {
                guard let buffer, let value else { continue }
                buffer.update(repeating: 0, count: value.bytes.count + 1)
                buffer.deallocate()
            }
        }
        let result = buffers.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
            clibpq_PQexecParams(
                handle, sql, Int32(parameters.count), types, values.baseAddress, lengths, formats, 0)
        }
        guard let result else { throw failure(nil) }
        defer { clibpq_PQclear(result) }
        switch clibpq_PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return Self.rows(of: result)
        default:
            throw failure(result)
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// `begin` is the statement that starts it (`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`
    /// reads one snapshot).
    package func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    // MARK: - Notifications

    /// The connection's socket, to wait on (`poll`) for notifications; -1 when it has none.
    package var socketDescriptor: Int32 { clibpq_PQsocket(handle) }

    /// The payloads of the notifications (`NOTIFY`) that arrived on channels this connection
    /// listens to, in order; empty when none did.
    ///
    /// - Throws: `SyncError.serverUnreachable` when the connection is lost.
    package func notifications() throws -> [String] {
        guard clibpq_PQconsumeInput(handle) == 1 else {
            throw SyncError(.serverUnreachable, "the connection to the sync server was lost: \(Self.firstLine(clibpq_PQerrorMessage(handle)))")
        }
        var payloads: [String] = []
        while let notification = clibpq_PQnotifies(handle) {
            payloads.append(notification.pointee.extra.map { String(cString: $0) } ?? "")
            clibpq_PQfreemem(notification)
        }
        return payloads
    }

    // MARK: - Private

    /// The error for a failed statement: the server's SQLSTATE and primary message, or the
    /// connection's state when there is no result or the connection dropped.
    private func failure(_ result: OpaquePointer?) -> SyncError {
        if clibpq_PQstatus(handle) != CONNECTION_OK {
            return SyncError(.serverUnreachable, "the connection to the sync server was lost: \(Self.firstLine(clibpq_PQerrorMessage(handle)))")
        }
        guard let result else {
            return SyncError(.serverFailed, "the sync server did not answer: \(Self.firstLine(clibpq_PQerrorMessage(handle)))")
        }
        let state = clibpq_PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = clibpq_PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? "unknown error"
        return SyncError(.serverFailed, "the sync server refused a statement: \(message)", sqlState: state)
    }

    /// Copies a result's rows out as text.
    private static func rows(of result: OpaquePointer) -> PostgresRows {
        let columnCount = Int(clibpq_PQnfields(result))
        let rowCount = Int(clibpq_PQntuples(result))
        let columns = (0..<columnCount).map { String(cString: clibpq_PQfname(result, Int32($0))) }
        var values: [[String?]] = []
        values.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            values.append((0..<columnCount).map { column in
                clibpq_PQgetisnull(result, Int32(row), Int32(column)) == 1
                    ? nil : String(cString: clibpq_PQgetvalue(result, Int32(row), Int32(column)))
            })
        }
        let affected = Int(String(cString: clibpq_PQcmdTuples(result))) ?? rowCount
        return PostgresRows(columns: columns, values: values, affected: affected)
    }

    /// The first line of a libpq message.
    private static func firstLine(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.split(separator: "\n").first.map(String.init) ?? "unknown error"
    }
}
