import Foundation

/// The rows a statement returned, copied out of libpq's result in text format, with typed
/// accessors that fail with `SyncError.refused` when a value is not what the schema promises
/// (a server is not trusted to send well-formed values).
package struct PostgresRows: Sendable {
    /// The column names, in order.
    package let columns: [String]
    /// The values, row by row (nil for SQL NULL).
    package let values: [[String?]]
    /// How many rows the statement changed (`INSERT`, `UPDATE`, `DELETE`), or returned.
    package let affected: Int

    /// The number of rows returned.
    package var count: Int { values.count }

    /// The text of column `column` in row `row`; nil for NULL.
    package func text(_ row: Int, _ column: String) throws -> String? {
        guard let index = columns.firstIndex(of: column), row < values.count else {
            throw SyncError(.refused, "the server's answer has no column \(column)")
        }
        return values[row][index]
    }

    /// A non-null text value.
    package func string(_ row: Int, _ column: String) throws -> String {
        guard let text = try text(row, column) else { throw SyncError(.refused, "the server sent NULL for \(column)") }
        return text
    }

    /// A `bigint` value.
    package func integer(_ row: Int, _ column: String) throws -> Int64 {
        guard let number = Int64(try string(row, column)) else { throw SyncError(.refused, "the server sent a malformed \(column)") }
        return number
    }

    /// A `uuid` value.
    package func uuid(_ row: Int, _ column: String) throws -> UUID {
        guard let uuid = UUID(uuidString: try string(row, column)) else {
            throw SyncError(.refused, "the server sent a malformed \(column)")
        }
        return uuid
    }

    /// A `boolean` value.
    package func boolean(_ row: Int, _ column: String) throws -> Bool {
        switch try string(row, column) {
        case "t": return true
        case "f": return false
        default: throw SyncError(.refused, "the server sent a malformed \(column)")
        }
    }

    /// A `bytea` value (text format `\x` followed by hexadecimal digits); nil for NULL.
    package func bytes(_ row: Int, _ column: String) throws -> Data? {
        guard let text = try text(row, column) else { return nil }
        guard let data = Self.decodeHex(text) else { throw SyncError(.refused, "the server sent a malformed \(column)") }
        return data
    }

    /// The bytes of a `bytea` in PostgreSQL's hex output format; nil when malformed.
    static func decodeHex(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { digits in
            guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x") else { return nil }
            return hexBytes(UnsafeBufferPointer(rebasing: digits[2...]))
        }
    }

    /// The bytes of the hexadecimal `digits` (either case); nil when they are not that. Written
    /// into one buffer (a `Data` grown a byte at a time cost most of a sync state's coding).
    static func hexBytes(_ digits: UnsafeBufferPointer<UInt8>) -> Data? {
        guard digits.count % 2 == 0 else { return nil }
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: digits.count / 2) { buffer, count in
            for index in 0..<digits.count / 2 {
                guard let high = hexValue(digits[2 * index]), let low = hexValue(digits[2 * index + 1]) else {
                    valid = false
                    break
                }
                buffer[index] = high << 4 | low
                count = index + 1
            }
        }
        return valid ? Data(bytes) : nil
    }

    /// The value of one hexadecimal digit (either case); nil for any other byte.
    static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
