import Foundation

/// A registered program as the registry seals it: `format ‖ path ‖ digest ‖ application
/// identifier (flag, then value) ‖ keychain groups ‖ application groups`, every string and blob
/// length-prefixed, every list count-prefixed (`ByteWriter`).
enum ProgramRegistryEncoding {
    private static let format: UInt8 = 1
    /// The most groups one list may hold when read back.
    private static let groupLimit = 4096

    /// `program`'s bytes.
    static func encode(_ program: RegisteredProgram) -> Data {
        var writer = ByteWriter()
        writer.u8(format)
        writer.lengthPrefixed(Data(program.executablePath.utf8))
        writer.lengthPrefixed(program.executableDigest)
        writer.u8(program.entitlements.applicationIdentifier == nil ? 0 : 1)
        writer.lengthPrefixed(Data((program.entitlements.applicationIdentifier ?? "").utf8))
        for groups in [program.entitlements.keychainAccessGroups, program.entitlements.applicationGroups] {
            writer.integer(UInt32(groups.count))
            for group in groups { writer.lengthPrefixed(Data(group.utf8)) }
        }
        return writer.data
    }

    /// The program `data` encodes.
    ///
    /// - Throws: `errSecDecode` when it is malformed.
    static func decode(_ data: Data) throws -> RegisteredProgram {
        var reader = ByteReader(data)
        guard try reader.u8() == format else { throw KeychainError(.decode, "a registered program's entry has an unknown format") }
        func string() throws -> String {
            guard let text = String(data: try reader.lengthPrefixed(limit: 1 << 20), encoding: .utf8) else {
                throw KeychainError(.decode, "a registered program's entry is malformed")
            }
            return text
        }
        let path = try string()
        let digest = try reader.lengthPrefixed(limit: 64)
        let hasIdentifier = try reader.u8() != 0
        let identifier = try string()
        func groups() throws -> [String] {
            let count = Int(try reader.integer(UInt32.self))
            guard count <= groupLimit else { throw KeychainError(.decode, "a registered program's entry is malformed") }
            return try (0..<count).map { _ in try string() }
        }
        let keychainGroups = try groups()
        let applicationGroups = try groups()
        try reader.requireEnd()
        return RegisteredProgram(
            executablePath: path, executableDigest: digest,
            entitlements: Entitlements(
                applicationIdentifier: hasIdentifier ? identifier : nil, keychainAccessGroups: keychainGroups,
                applicationGroups: applicationGroups))
    }
}
