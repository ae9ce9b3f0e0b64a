internal import CSQLite
import Foundation

/// A prepared statement owned by its connection's cache.
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    package init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { CSQLite_finalize(handle) }

    /// Resets the statement and clears its bindings.
    package func reset() {
        CSQLite_reset(handle)
        CSQLite_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1…n.
    @discardableResult
    package func bind(_ values: [SQLiteValue]) throws -> SQLiteStatement {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null:
                status = CSQLite_bind_null(handle, index)
            case .integer(let number):
                status = CSQLite_bind_int64(handle, index, number)
            case .text(let text):
                status = CSQLite_bind_text(handle, index, text, -1, CSQLite_TRANSIENT())
            case .blob(let data):
                status = data.withUnsafeBytes { buffer in
                    // A zero-length blob must still bind as a blob, not NULL.
                    CSQLite_bind_blob64(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(buffer.count),
                        CSQLite_TRANSIENT())
                }
            }
            guard status == SQLITE_OK else { throw SQLiteError(code: status, message: connection.lastMessage) }
        }
        return self
    }

    /// Advances to the next row; false when done.
    package func step() throws -> Bool {
        let status = CSQLite_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(code: status, message: connection.lastMessage)
            CSQLite_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows.
    package func run() throws {
        while try step() {}
        CSQLite_reset(handle)
    }

    /// Reads every row with `read`, then resets.
    package func rows<T>(_ read: (SQLiteStatement) throws -> T) throws -> [T] {
        var result: [T] = []
        defer { CSQLite_reset(handle) }
        while try step() { result.append(try read(self)) }
        return result
    }

    /// Column `index` as an integer.
    package func int64(_ index: Int32) -> Int64 { CSQLite_column_int64(handle, index) }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool { CSQLite_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` as text, nil for NULL.
    package func text(_ index: Int32) -> String? {
        guard let pointer = CSQLite_column_text(handle, index) else { return nil }
        return String(cString: pointer)
    }

    /// Column `index`'s bytes, lent to `body` without a copy (nil for NULL; valid only inside
    /// `body`, before the statement moves on).
    package func withBlob<T>(_ index: Int32, _ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        guard CSQLite_column_type(handle, index) != SQLITE_NULL else { return try body(nil) }
        let count = Int(CSQLite_column_bytes(handle, index))
        guard count > 0, let pointer = CSQLite_column_blob(handle, index) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as a blob, nil for NULL.
    package func blob(_ index: Int32) -> Data? {
        guard CSQLite_column_type(handle, index) != SQLITE_NULL else { return nil }
        let count = Int(CSQLite_column_bytes(handle, index))
        guard count > 0, let pointer = CSQLite_column_blob(handle, index) else { return Data() }
        return Data(bytes: pointer, count: count)
    }
}

/// A value bound to an SQL parameter.
package enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob(Data)
}
