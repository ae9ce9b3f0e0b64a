import Foundation

/// A parameter of a statement sent to PostgreSQL. Bytes travel in binary format (no escaping, no
/// text conversion); the others as text with their type named, so the server never guesses.
package enum PostgresValue: Sendable {
    /// `text`.
    case text(String)
    /// `bytea`, sent as binary.
    case bytes(Data)
    /// `bigint`.
    case integer(Int64)
    /// `uuid`.
    case uuid(UUID)
    /// `boolean`.
    case boolean(Bool)
    /// SQL NULL (typed as `bytea`, the only nullable column type parameters need).
    case null

    /// The type's OID (`pg_type`), given with each parameter.
    var typeOID: UInt32 {
        switch self {
        case .text: return 25
        case .bytes, .null: return 17
        case .integer: return 20
        case .uuid: return 2950
        case .boolean: return 16
        }
    }

    /// The parameter's bytes and whether they are binary (format 1); nil for NULL.
    var encoded: (bytes: [UInt8], binary: Bool)? {
        switch self {
        case .text(let text): return (Array(text.utf8), false)
        case .bytes(let data): return ([UInt8](data), true)
        case .integer(let number): return (Array(String(number).utf8), false)
        case .uuid(let uuid): return (Array(uuid.uuidString.lowercased().utf8), false)
        case .boolean(let flag): return (Array((flag ? "true" : "false").utf8), false)
        case .null: return nil
        }
    }
}
