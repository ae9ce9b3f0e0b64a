import Foundation
import KeychainCore

/// Converts dictionary values to an attribute's kind, as Apple's daemon does (`SecDbItem.c`'s
/// `copyString`, `copyData`, `copyNumber`, …); a value that cannot be converted is `errSecParam`.
enum AttributeCoercion {
    /// Converts `value` for `attribute`.
    static func coerce(_ value: RequestValue, for attribute: AttributeDescriptor) throws -> AttributeValue {
        let converted: AttributeValue?
        switch attribute.kind {
        case .blob:
            switch value {
            case .string(let text): converted = .string(text)
            case .data(let data): converted = .data(data)
            case .integer(let number): converted = .integer(number)
            default: converted = nil
            }
        case .data:
            switch value {
            case .data(let data): converted = .data(data)
            case .string(let text): converted = .data(Data(text.utf8))
            case .integer(let number) where Int32(exactly: number) != nil:
                converted = .data(AttributeValue.integer(number).comparableBytes)
            default: converted = nil
            }
        case .string:
            switch value {
            case .string(let text): converted = .string(text)
            case .data(let data): converted = String(data: data, encoding: .utf8).map(AttributeValue.string)
            default: converted = nil
            }
        case .number:
            switch value {
            case .integer(let number): converted = .integer(number)
            case .boolean(let flag): converted = .integer(flag ? 1 : 0)
            case .real(let real): converted = Int64(exactly: real).map(AttributeValue.integer)
            case .string(let text): converted = Int64(text).map(AttributeValue.integer) ?? .string(text)
            default: converted = nil
            }
        case .synchronizable:
            converted = try synchronizable(value).map { .integer($0 ? 1 : 0) }
        case .date:
            if case .date(let date) = value { converted = .date(date) } else { converted = nil }
        case .protection:
            if case .string(let text) = value, Protection(rawValue: text) != nil {
                converted = .string(text)
            } else {
                throw KeychainError.param("\(attribute.constant) is not a valid accessibility value")
            }
        case .digest:
            if case .data(let data) = value, data.count == 20 { converted = .data(data) } else { converted = nil }
        case .accessControl:
            converted = nil
        }
        guard let converted else {
            throw KeychainError.param("\(attribute.constant) does not accept a \(value.typeDescription) value")
        }
        return converted
    }

    /// Reads `kSecAttrSynchronizable`: a boolean, a number, or a string holding an integer.
    /// Returns nil for `kSecAttrSynchronizableAny`.
    static func synchronizable(_ value: RequestValue) throws -> Bool? {
        switch value {
        case .boolean(let flag): return flag
        case .integer(let number): return number != 0
        case .string("syna"): return nil
        case .string(let text):
            if let number = Int64(text) { return number != 0 }
        default: break
        }
        throw KeychainError.param("kSecAttrSynchronizable does not accept a \(value.typeDescription) value")
    }
}
