import Foundation
import KeychainAuthentication
import KeychainCore

/// A value of a SecItem dictionary, converted from its CF/Foundation type by the `Security` surface.
package enum RequestValue: Sendable {
    /// A string (`CFString`).
    case string(String)
    /// Bytes (`CFData`).
    case data(Data)
    /// An integral number (`CFNumber`).
    case integer(Int64)
    /// A number with a fractional part (`CFNumber` of a floating-point type).
    case real(Double)
    /// A boolean (`CFBoolean`).
    case boolean(Bool)
    /// A date (`CFDate`).
    case date(Date)
    /// `NSNull` / `kCFNull`.
    case null
    /// An array.
    case array([RequestValue])
    /// A dictionary with string keys.
    case dictionary([String: RequestValue])
    // The three rarer cases below are boxed: their payloads (an identity, an existential) are
    // several times the size of the others', and every value of a request is copied a few times
    // while it is parsed; boxed, a value is two words and copies as one reference.
    /// A `SecAccessControl`.
    indirect case accessControl(AccessControlPolicy)
    /// A `SecKey`, `SecCertificate` or `SecIdentity` (`kSecValueRef`).
    indirect case reference(ItemReference)
    /// An authentication context (`LAContext`, for `kSecUseAuthenticationContext`).
    indirect case authenticationContext(any KeychainAuthenticating)
    /// An object the engine does not interpret; `typeName` names it in errors.
    case object(typeName: String)

    /// How deeply a request may nest: the request dictionary is level 1, an array or dictionary
    /// inside it level 2, and so on. A request with a container deeper than this is
    /// `errSecParam`, refused before anything below that level is read, so that no caller
    /// input, not even a container that holds itself, can exhaust a thread's stack (512 KiB on
    /// a secondary thread). Apple's dictionaries nest two or three levels
    /// (`kSecPrivateKeyAttrs`, `kSecMatchIssuers`).
    package static let maximumNestingDepth = 32

    /// A short name of the value's type, for error reasons (never the value itself).
    var typeDescription: String {
        switch self {
        case .string: return "string"
        case .data: return "data"
        case .integer, .real: return "number"
        case .boolean: return "boolean"
        case .date: return "date"
        case .null: return "null"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .accessControl: return "SecAccessControl"
        case .reference(.key): return "SecKey"
        case .reference(.certificate): return "SecCertificate"
        case .reference(.identity): return "SecIdentity"
        case .object(let typeName): return typeName
        case .authenticationContext: return "LAContext"
        }
    }

    /// The value as a boolean flag: booleans and the numbers 0 and 1.
    var flag: Bool? {
        switch self {
        case .boolean(let value): return value
        case .integer(let value) where value == 0 || value == 1: return value == 1
        default: return nil
        }
    }
}

extension AttributeValue {
    /// The value as a dictionary value, for merging a reference's attributes into a request.
    var requestValue: RequestValue {
        switch self {
        case .string(let text): return .string(text)
        case .data(let data): return .data(data)
        case .integer(let number): return .integer(number)
        case .date(let date): return .date(date)
        }
    }
}
