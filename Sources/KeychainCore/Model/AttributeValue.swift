import Foundation

/// One stored attribute value, in the type Apple returns it in.
public enum AttributeValue: Hashable, Sendable {
    /// Text.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A number (booleans are stored as 0 and 1, as Apple returns them).
    case integer(Int64)
    /// A point in time.
    case date(Date)

    /// The bytes Apple compares for blob and data attributes: UTF-8 for text, the bytes of data,
    /// a 4-byte native-endian integer for numbers, the 8 bytes of the time interval for dates.
    package var comparableBytes: Data {
        switch self {
        case .string(let text): return Data(text.utf8)
        case .data(let data): return data
        case .integer(let number):
            var value = Int32(truncatingIfNeeded: number)
            return withUnsafeBytes(of: &value) { Data($0) }
        case .date(let date):
            var bits = date.timeIntervalSinceReferenceDate.bitPattern.bigEndian
            return withUnsafeBytes(of: &bits) { Data($0) }
        }
    }

    /// The text, when this is a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The integer, when this is a number.
    public var integerValue: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }
}
