import Foundation
import KeychainCore

/// A result: class, attributes?, access control?, data?, persistent reference?, reference?.
extension ItemResult: WireCodable {
    /// Writes every part.
    public func encode(to writer: inout WireWriter) throws {
        try writer.write(itemClass)
        try writer.optional(attributes) { try $0.write($1) }
        try writer.optional(accessControl) { try $0.write($1) }
        writer.optional(data) { $0.bytes($1) }
        writer.optional(persistentReference) { $0.bytes($1) }
        try writer.optional(reference) { try $0.write($1) }
    }

    /// Reads every part.
    public init(from reader: inout WireReader) throws {
        self.init(itemClass: try reader.read())
        attributes = try reader.optional { try $0.read() }
        accessControl = try reader.optional { try $0.read() }
        data = try reader.optional { try $0.bytes() }
        persistentReference = try reader.optional { try $0.bytes() }
        reference = try reader.optional { try $0.read() }
    }
}
