import KeychainCore

/// An access control: its protection's stored code (`ak`, `cku`, …) as text, then its flags as
/// a `UInt64` (Apple's bit values). Decoding validates the pair as the engine does.
extension AccessControlPolicy: WireCodable {
    /// Writes the protection code and the flags.
    public func encode(to writer: inout WireWriter) throws {
        try writer.write(protection)
        writer.integer(flags.rawValue)
    }

    /// Reads and validates the protection code and the flags.
    public init(from reader: inout WireReader) throws {
        let protection = try reader.read(Protection.self)
        let flags = Flags(rawValue: try reader.integer(UInt64.self))
        self = try engineValue("an access control") { try AccessControlPolicy(protection: protection, flags: flags) }
    }
}

/// A protection: its stored code as text.
extension Protection: WireCodable {
    /// Writes the stored code.
    public func encode(to writer: inout WireWriter) throws { writer.string(rawValue) }

    /// Reads a stored code this side knows.
    public init(from reader: inout WireReader) throws {
        guard let value = Protection(rawValue: try reader.string()) else {
            throw WireError(.unknownTag, "unknown protection class")
        }
        self = value
    }
}

/// An item class: its four-character `kSecClass` value as text.
extension ItemClass: WireCodable {
    /// Writes the class code.
    public func encode(to writer: inout WireWriter) throws { writer.string(rawValue) }

    /// Reads a class code this side knows.
    public init(from reader: inout WireReader) throws {
        guard let value = ItemClass(rawValue: try reader.string()) else {
            throw WireError(.unknownTag, "unknown item class")
        }
        self = value
    }
}
