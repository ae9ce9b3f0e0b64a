import Foundation
import KeychainCore

/// A request, field by field in declaration order: class, attributes, access control?,
/// synchronizable filter, secret?, persistent reference?, identity?, match limit?, return
/// options, case-insensitive flag, host-or-subdomain?, authentication UI, grant?, application
/// password? (`?` marks a presence byte).
extension ItemRequest: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) throws {
        try writer.write(itemClass)
        try writer.write(attributes)
        try writer.optional(accessControl) { try $0.write($1) }
        try writer.write(synchronizable)
        writer.optional(secret) { $0.bytes($1) }
        writer.optional(persistentReference) { $0.bytes($1.data) }
        try writer.optional(identity) { try $0.write($1) }
        try writer.optional(matchLimit) { try $0.write($1) }
        writer.u8(UInt8(truncatingIfNeeded: returns.rawValue))
        writer.bool(caseInsensitive)
        writer.optional(hostOrSubdomain) { $0.string($1) }
        try writer.write(authenticationUI)
        writer.optional(authentication.grant) { $0.bytes($1) }
        writer.optional(authentication.applicationPassword) { $0.bytes($1) }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        self.init(itemClass: try reader.read())
        attributes = try reader.read()
        accessControl = try reader.optional { try $0.read() }
        synchronizable = try reader.read()
        secret = try reader.optional { try $0.bytes() }
        persistentReference = try reader.optional { reader in
            let data = try reader.bytes()
            return try engineValue("a persistent reference") { try PersistentReference(data: data) }
        }
        identity = try reader.optional { try $0.read() }
        matchLimit = try reader.optional { try $0.read() }
        let returnBits = Int(try reader.u8())
        guard returnBits & ~0b1111 == 0 else { throw WireError(.invalidValue, "unknown return option bits") }
        returns = ReturnOptions(rawValue: returnBits)
        caseInsensitive = try reader.bool()
        hostOrSubdomain = try reader.optional { try $0.string() }
        authenticationUI = try reader.read()
        authentication.grant = try reader.optional { try $0.bytes() }
        authentication.applicationPassword = try reader.optional { try $0.bytes() }
    }
}

/// Changes: attributes, access control?, synchronizable?, secret?.
extension ItemChanges: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) throws {
        try writer.write(attributes)
        try writer.optional(accessControl) { try $0.write($1) }
        writer.optional(synchronizable) { $0.bool($1) }
        writer.optional(secret) { $0.bytes($1) }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        self.init()
        attributes = try reader.read()
        accessControl = try reader.optional { try $0.read() }
        synchronizable = try reader.optional { try $0.bool() }
        secret = try reader.optional { try $0.bytes() }
    }
}

/// A synchronizable filter: 0 unspecified, 1 any, 2 only non-synchronizable, 3 only synchronizable.
extension SynchronizableFilter: WireCodable {
    /// Writes the tag.
    public func encode(to writer: inout WireWriter) {
        switch self {
        case .unspecified: writer.u8(0)
        case .any: writer.u8(1)
        case .only(false): writer.u8(2)
        case .only(true): writer.u8(3)
        }
    }

    /// Reads the tag.
    public init(from reader: inout WireReader) throws {
        switch try reader.u8() {
        case 0: self = .unspecified
        case 1: self = .any
        case 2: self = .only(false)
        case 3: self = .only(true)
        default: throw WireError(.unknownTag, "unknown synchronizable filter")
        }
    }
}

/// A match limit: 1 one, 2 a count (Int64), 3 all.
extension MatchLimit: WireCodable {
    /// Writes the tag and the count.
    public func encode(to writer: inout WireWriter) {
        switch self {
        case .one: writer.u8(1)
        case .count(let count):
            writer.u8(2)
            writer.int(count)
        case .all: writer.u8(3)
        }
    }

    /// Reads the tag and the count.
    public init(from reader: inout WireReader) throws {
        switch try reader.u8() {
        case 1: self = .one
        case 2: self = .count(try reader.int())
        case 3: self = .all
        default: throw WireError(.unknownTag, "unknown match limit")
        }
    }
}

/// Authentication UI: 1 allow, 2 fail, 3 skip.
extension AuthenticationUI: WireCodable {
    /// Writes the tag.
    public func encode(to writer: inout WireWriter) {
        switch self {
        case .allow: writer.u8(1)
        case .fail: writer.u8(2)
        case .skip: writer.u8(3)
        }
    }

    /// Reads the tag.
    public init(from reader: inout WireReader) throws {
        switch try reader.u8() {
        case 1: self = .allow
        case 2: self = .fail
        case 3: self = .skip
        default: throw WireError(.unknownTag, "unknown authentication UI")
        }
    }
}
