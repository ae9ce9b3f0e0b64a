import Foundation
import Synchronization

/// The owner's registry of programs with entitlements (`security entitlements add|list|remove`):
/// part of the keychain, sealed and authenticated like its items (`KeychainStore+Programs.swift`).
extension Keychain {
    /// The length of an executable's digest (SHA-256).
    public static let programDigestLength = 32

    /// Registers `program`, replacing any registration of the same executable path.
    ///
    /// - Throws: `errSecParam` when the path is not absolute or the digest is not a SHA-256;
    ///   `errSecDecode` when the registry was altered (nothing is written then).
    public func registerProgram(_ program: RegisteredProgram) throws {
        guard program.executablePath.hasPrefix("/"), !program.executablePath.contains("\u{0}") else {
            throw KeychainError.param("a registered program's path must be absolute")
        }
        guard program.executableDigest.count == Self.programDigestLength else {
            throw KeychainError.param("a registered program's digest must be a SHA-256 digest")
        }
        let token = try store.programToken(program.executablePath)
        let body = try store.sealProgram(program, token: token)
        defer { Self.bumpRegistryGeneration() }
        try writing { tx in try tx.store.setProgram(token: token, body: body, in: tx.connection) }
    }

    /// Every registered program, by path.
    ///
    /// - Throws: `errSecDecode` when the registry was altered: an entry removed, added, swapped,
    ///   changed or put back to an earlier registration.
    public func registeredPrograms() throws -> [RegisteredProgram] {
        let entries = try reading { tx in try tx.store.verifiedPrograms(in: tx.connection) }
        return try entries.map { try store.openProgram(token: $0.token, body: $0.body) }
            .sorted { $0.executablePath < $1.executablePath }
    }

    /// Removes the registration of `executablePath`.
    ///
    /// - Throws: `errSecItemNotFound` when it is not registered; `errSecDecode` when the
    ///   registry was altered (nothing is written then).
    public func removeProgram(executablePath: String) throws {
        defer { Self.bumpRegistryGeneration() }
        let token = try store.programToken(executablePath)
        try writing(removing: true) { tx in
            guard try tx.store.verifiedPrograms(in: tx.connection).contains(where: { $0.token == token }) else {
                throw KeychainError(.itemNotFound, "the program is not registered")
            }
            try tx.store.setProgram(token: token, body: nil, in: tx.connection)
        }
    }

    /// Removes every registration, whatever the registry holds: the way back to a registry that
    /// verifies once it was altered (the owner then registers the programs again).
    public func removeAllPrograms() throws {
        defer { Self.bumpRegistryGeneration() }
        try writing(removing: true) { tx in try tx.store.removeAllPrograms(in: tx.connection) }
    }

    /// A number that changes whenever this process changes a registry of programs or opens a
    /// keychain (whose registry it has not seen): what was decided from registries before is
    /// still right while it stays the same. The daemon, the only writer of the keychains it
    /// holds, keeps its decisions about callers for as long.
    package static var registryGeneration: UInt64 { registryCounter.load(ordering: .relaxed) }

    /// Marks every decision taken from a registry as stale.
    static func bumpRegistryGeneration() { registryCounter.add(1, ordering: .relaxed) }
}

/// The counter behind `Keychain.registryGeneration`.
private let registryCounter = Atomic<UInt64>(0)
