import KeychainCore

/// Attribute sets travel in the layout the keychain stores them in (`RecordCodec`: a version
/// byte, a count, then each attribute's 4-character short name, a kind tag and its value),
/// length-prefixed. An attribute name this side does not know is refused, not dropped: a
/// search or delete must not silently lose a criterion.
extension ItemAttributes: WireCodable {
    /// Writes the record layout, length-prefixed.
    public func encode(to writer: inout WireWriter) throws {
        writer.bytes(RecordCodec.encode(self))
    }

    /// Reads the record layout.
    public init(from reader: inout WireReader) throws {
        let record = try reader.bytes()
        self = try engineValue("an attribute set") { try RecordCodec.decode(record, rejectingUnknownNames: true) }
    }
}
