import Foundation
import KeychainSQLite

/// The program registry's rows: one per registered executable path, as `(token, sealed body)`.
///
/// The token is HMAC-SHA256 of the path under the index token key (so a path is found, replaced
/// and removed without being stored); the body is the registration (`ProgramRegistryEncoding`)
/// sealed with AES-256-GCM under the index keys' program key, always available, with the token
/// as associated data (a body moved to another row does not open). The ledger's root keeps an
/// HMAC over every row (`programRegistryDigest`), so a row removed, added, swapped or put back
/// to an earlier registration is found: the registry is then refused whole (`errSecDecode`)
/// until its owner clears it (`removeAllPrograms`), and no write vouches for it meanwhile.
extension KeychainStore {
    /// The program registry's table.
    static let programRegistrySchema = """
        CREATE TABLE programs (token BLOB PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID;
        """

    /// What a root rebuilt from damage records for a non-empty registry: no table's digest
    /// (a digest is a MAC under the ledger key), so the registry stays refused.
    private static let unverifiableProgramDigest = Data(repeating: 0xff, count: RollbackLedger.digestLength)

    /// The digest of the program registry as stored: HMAC-SHA256 under the ledger key over every
    /// `(token, body)` in token order; all zeros when it is empty.
    func programRegistryDigest(of entries: [(token: Data, body: Data)]) throws -> Data {
        guard !entries.isEmpty else { return Data(count: RollbackLedger.digestLength) }
        var writer = ByteWriter()
        writer.raw(Data("program registry v1\u{0}".utf8))
        for entry in entries.sorted(by: { $0.token.lexicographicallyPrecedes($1.token) }) {
            writer.lengthPrefixed(entry.token)
            writer.lengthPrefixed(entry.body)
        }
        return try ledger.key.authenticationCode(for: writer.data).prefix(RollbackLedger.digestLength)
    }

    /// The program digest a new root carries over from the stored one: the stored root's when it
    /// authenticates; otherwise an empty registry's when the table is empty, and a digest no
    /// table has when it is not (a rebuild cannot tell which registrations are authentic).
    func carriedProgramDigest(in connection: SQLiteConnection) throws -> Data {
        if let root = try ledgerRoot(in: connection) { return root.programs }
        return try storedPrograms(in: connection).isEmpty
            ? Data(count: RollbackLedger.digestLength) : Self.unverifiableProgramDigest
    }

    /// Every row of the registry as stored, unchecked.
    func storedPrograms(in connection: SQLiteConnection) throws -> [(token: Data, body: Data)] {
        try connection.statement("SELECT token, body FROM programs ORDER BY token").rows {
            ($0.blob(0) ?? Data(), $0.blob(1) ?? Data())
        }
    }

    /// Every row of the registry, as the ledger's root vouches for them.
    ///
    /// - Throws: `errSecDecode` when the table is not what the root records.
    func verifiedPrograms(in connection: SQLiteConnection) throws -> [(token: Data, body: Data)] {
        let entries = try storedPrograms(in: connection)
        guard let root = try ledgerRoot(in: connection), try programRegistryDigest(of: entries) == root.programs else {
            throw KeychainError(.decode, "the program registry was altered: the keychain is damaged")
        }
        return entries
    }

    /// Writes (or, with a nil body, removes) the row `token` of a registry the root vouches
    /// for, and records the registry's new digest in the root.
    ///
    /// - Throws: `errSecDecode` when the registry does not verify (nothing is written then).
    func setProgram(token: Data, body: Data?, in connection: SQLiteConnection) throws {
        _ = try verifiedPrograms(in: connection)
        if let body {
            try connection.statement("INSERT INTO programs(token, body) VALUES (?, ?) ON CONFLICT(token) DO UPDATE SET body = excluded.body")
                .bind([.blob(token), .blob(body)]).run()
        } else {
            try connection.statement("DELETE FROM programs WHERE token = ?").bind([.blob(token)]).run()
        }
        try recordProgramRegistry(in: connection)
    }

    /// Removes every row and records an empty registry, whatever the table held: the owner's
    /// way out of a registry that no longer verifies.
    func removeAllPrograms(in connection: SQLiteConnection) throws {
        try connection.statement("DELETE FROM programs").run()
        try recordProgramRegistry(in: connection)
    }

    private func recordProgramRegistry(in connection: SQLiteConnection) throws {
        guard var root = try ledgerRoot(in: connection) else {
            throw KeychainError(.decode, "the keychain's ledger was altered: the keychain is damaged")
        }
        root.programs = try programRegistryDigest(of: try storedPrograms(in: connection))
        try writeRoot(root, in: connection)
    }

    // MARK: - Sealing

    private static let programLabel = Data("registered program v1\u{0}".utf8)

    /// The token naming `executablePath` in the registry.
    func programToken(_ executablePath: String) throws -> Data {
        try sealer.keyRing.index.tokens.authenticationCode(for: Data("prog\u{0}\(executablePath)".utf8))
    }

    /// `program` sealed for the row `token`.
    func sealProgram(_ program: RegisteredProgram, token: Data) throws -> Data {
        var plaintext = ProgramRegistryEncoding.encode(program)
        defer { plaintext.wipe() }
        return try sealer.keyRing.index.programs.seal(plaintext, aad: Self.programLabel + token)
    }

    /// The registration sealed in the row `(token, body)`.
    ///
    /// - Throws: `errSecDecode` when the body does not open for this row or names another path.
    func openProgram(token: Data, body: Data) throws -> RegisteredProgram {
        guard let plaintext = try? sealer.keyRing.index.programs.open(body, aad: Self.programLabel + token) else {
            throw KeychainError(.decode, "a registered program's entry was altered: the keychain is damaged")
        }
        let program = try plaintext.withUnsafeBytes { try ProgramRegistryEncoding.decode(Data($0)) }
        guard try programToken(program.executablePath) == token else {
            throw KeychainError(.decode, "a registered program's entry was altered: the keychain is damaged")
        }
        return program
    }
}
