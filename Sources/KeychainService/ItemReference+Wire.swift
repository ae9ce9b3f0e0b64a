import Foundation
import KeychainCore
import KeychainCrypto

/// A key, certificate or identity: a tag (1 key, 2 certificate, 3 identity), then
/// - a key: its `kSecAttrKeyType` and `kSecAttrKeyClass` numbers (Int64 each) and its external
///   representation (`SecKeyCopyExternalRepresentation`'s bytes), rebuilt with
///   `AsymmetricKey(externalRepresentation:type:keyClass:)`;
/// - a certificate: its DER, parsed again with `Certificate(der:)`;
/// - an identity: the certificate, then the private key.
extension ItemReference: WireCodable {
    /// Writes the tag and the object.
    public func encode(to writer: inout WireWriter) throws {
        switch self {
        case .key(let key):
            writer.u8(1)
            try writer.write(key)
        case .certificate(let certificate):
            writer.u8(2)
            try writer.write(certificate)
        case .identity(let identity):
            writer.u8(3)
            try writer.write(identity)
        }
    }

    /// Reads the tag and rebuilds the object with the engine's constructors.
    public init(from reader: inout WireReader) throws {
        switch try reader.u8() {
        case 1: self = .key(try reader.read())
        case 2: self = .certificate(try reader.read())
        case 3: self = .identity(try reader.read())
        default: throw WireError(.unknownTag, "unknown reference kind")
        }
    }
}

/// A key: type and class numbers, then the external representation (which holds the private
/// key of a private key: the decoded copy is zeroed once the key is built), or for a key held
/// by the TPM its wrapped blob (`AsymmetricKey.storedRepresentation`), or for a private key the
/// keychain holds its reference (`AsymmetricKey.keychainItemRepresentation`: the item's
/// persistent reference and the public key, never the private key).
extension AsymmetricKey: WireCodable {
    /// Writes the key's type, class and external representation.
    public func encode(to writer: inout WireWriter) throws {
        writer.integer(type.rawValue)
        writer.integer(keyClass.rawValue)
        if let reference = keychainItemRepresentation {
            writer.bytes(reference)
        } else {
            writer.bytes(try storedRepresentation())
        }
    }

    /// Reads and rebuilds a key.
    public init(from reader: inout WireReader) throws {
        guard let type = KeyType(rawValue: try reader.integer(Int64.self)) else {
            throw WireError(.unknownTag, "unknown key type")
        }
        guard let keyClass = KeyClass(rawValue: try reader.integer(Int64.self)) else {
            throw WireError(.unknownTag, "unknown key class")
        }
        var representation = try reader.bytes()
        defer { representation.wipe() }
        self = try engineValue("a key") {
            if AsymmetricKey.isKeychainItemRepresentation(representation) {
                guard keyClass == .private else { throw WireError(.invalidValue, "a key reference is a private key") }
                return try AsymmetricKey(keychainItemRepresentation: representation, type: type)
            }
            if AsymmetricKey.isHardwareRepresentation(representation) {
                return try AsymmetricKey(hardwareRepresentation: representation)
            }
            return try AsymmetricKey(externalRepresentation: representation, type: type, keyClass: keyClass)
        }
    }
}

/// A certificate: its DER.
extension Certificate: WireCodable {
    /// Writes the DER.
    public func encode(to writer: inout WireWriter) throws { writer.bytes(der) }

    /// Reads and parses the DER.
    public init(from reader: inout WireReader) throws {
        let der = try reader.bytes()
        self = try engineValue("a certificate") { try Certificate(der: der) }
    }
}

/// An identity: its certificate, then its private key.
extension Identity: WireCodable {
    /// Writes the certificate and the key.
    public func encode(to writer: inout WireWriter) throws {
        try writer.write(certificate)
        try writer.write(privateKey)
    }

    /// Reads the certificate and the key.
    public init(from reader: inout WireReader) throws {
        let certificate = try reader.read(Certificate.self)
        self.init(certificate: certificate, privateKey: try reader.read())
    }
}
