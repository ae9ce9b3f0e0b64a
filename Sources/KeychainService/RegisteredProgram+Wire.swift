import Foundation
import KeychainCore

/// A registered program: executable path, executable digest, entitlements.
extension RegisteredProgram: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        writer.string(executablePath)
        writer.bytes(executableDigest)
        entitlements.encode(to: &writer)
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        self.init(
            executablePath: try reader.string(), executableDigest: try reader.bytes(),
            entitlements: try reader.read())
    }
}

/// Entitlements: application identifier?, keychain access groups, application groups (arrays
/// of text).
extension Entitlements: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        writer.optional(applicationIdentifier) { $0.string($1) }
        writer.array(keychainAccessGroups) { $0.string($1) }
        writer.array(applicationGroups) { $0.string($1) }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        self.init(
            applicationIdentifier: try reader.optional { try $0.string() },
            keychainAccessGroups: try reader.array { try $0.string() },
            applicationGroups: try reader.array { try $0.string() })
    }
}
