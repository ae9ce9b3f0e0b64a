import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// The owner's registry of programs is part of the keychain: sealed (nothing readable in its
/// files), persistent, and authenticated by the ledger's root, so an entry removed, swapped,
/// altered or put back to an earlier registration is reported as damage (errSecDecode), never
/// taken as the registry's content.
@Suite("The program registry is sealed, persistent and authenticated like the items")
struct ProgramRegistryTests {
    static let mailPath = "/opt/registry-test/bin/mail-client-7c1f"
    static let notesPath = "/opt/registry-test/bin/notes-app-93ad"

    static func program(_ path: String, groups: [String], digestByte: UInt8 = 0xa1) -> RegisteredProgram {
        RegisteredProgram(
            executablePath: path, executableDigest: Data(repeating: digestByte, count: 32),
            entitlements: Entitlements(
                applicationIdentifier: "TEAM4711.\(path.split(separator: "/").last!)", keychainAccessGroups: groups,
                applicationGroups: ["group.registry-test.shared-e5"]))
    }

    static let mail = program(mailPath, groups: ["TEAM4711.mail-secrets-group-b2", "TEAM4711.shared-tokens-group-c3"])
    static let notes = program(notesPath, groups: ["TEAM4711.notes-secrets-group-d4"])

    /// A keychain with both programs registered, and a direct connection to its database.
    struct Fixture {
        let temporary = try! TemporaryKeychain()
        var keychain: Keychain { temporary.keychain }
        let connection: SQLiteConnection

        init() throws {
            try temporary.keychain.registerProgram(ProgramRegistryTests.mail)
            try temporary.keychain.registerProgram(ProgramRegistryTests.notes)
            connection = try SQLiteConnection(path: temporary.keychain.path)
        }

        /// The registry's rows as stored: (token, body), in token order.
        func rows() throws -> [(token: Data, body: Data)] {
            try connection.statement("SELECT token, body FROM programs ORDER BY token").rows { ($0.blob(0) ?? Data(), $0.blob(1) ?? Data()) }
        }

        func setBody(_ body: Data, token: Data) throws {
            try connection.statement("UPDATE programs SET body = ? WHERE token = ?").bind([.blob(body), .blob(token)]).run()
        }

        /// The status `registeredPrograms()` ends with (nil: it returned).
        func listStatus() -> KeychainError.Code? { status { _ = try keychain.registeredPrograms() } }
    }

    @Test("a registered program is listed as registered, replaced by a new registration of its path, and removed by path")
    func registerListReplaceRemove() throws {
        let fixture = try Fixture()
        #expect(try fixture.keychain.registeredPrograms() == [Self.mail, Self.notes])
        let updated = Self.program(Self.mailPath, groups: ["TEAM4711.other"], digestByte: 0x5c)
        try fixture.keychain.registerProgram(updated)
        #expect(try fixture.keychain.registeredPrograms() == [updated, Self.notes])
        try fixture.keychain.removeProgram(executablePath: Self.notesPath)
        #expect(try fixture.keychain.registeredPrograms() == [updated])
        #expect(status { try fixture.keychain.removeProgram(executablePath: Self.notesPath) } == .itemNotFound)
        try fixture.keychain.removeProgram(executablePath: Self.mailPath)
        #expect(try fixture.keychain.registeredPrograms() == [])
        #expect(try fixture.rows().isEmpty)
    }

    @Test("a registration with a relative path or a digest that is not SHA-256 is errSecParam, and nothing is stored")
    func invalidRegistrationRefused() throws {
        let temporary = try TemporaryKeychain()
        var relative = Self.mail
        relative.executablePath = "bin/mail"
        #expect(status { try temporary.keychain.registerProgram(relative) } == .param)
        var shortDigest = Self.mail
        shortDigest.executableDigest = Data(count: 20)
        #expect(status { try temporary.keychain.registerProgram(shortDigest) } == .param)
        #expect(try temporary.keychain.registeredPrograms() == [])
    }

    @Test("the registry persists: a new process opening the keychain (a passcode, locked) lists the same programs")
    func persistsAcrossReopen() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.keychain.registerProgram(Self.mail)
        _ = try temporary.keychain.addPassword(service: "svc", account: "acct", secret: "s")
        let reopened = try temporary.reopened()
        #expect(reopened.lockState == .beforeFirstUnlock)
        #expect(try reopened.registeredPrograms() == [Self.mail])
    }

    @Test("no path, group name or application identifier of a registration is readable in the keychain's files")
    func nothingInPlaintext() throws {
        let fixture = try Fixture()
        var bytes = Data()
        for suffix in ["", "-wal"] {
            bytes.append((try? Data(contentsOf: URL(fileURLWithPath: fixture.keychain.path + suffix))) ?? Data())
        }
        #expect(!bytes.isEmpty)
        var needles = [Self.mailPath, Self.notesPath, "mail-client-7c1f", "group.registry-test.shared-e5"]
        needles += Self.mail.entitlements.accessGroups + Self.notes.entitlements.accessGroups
        for needle in needles {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is in the database files")
            #expect(bytes.range(of: Data(needle.utf16.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] })) == nil)
        }
    }

    @Test("a registry row deleted behind the keychain's back: errSecDecode, and no registration or removal vouches for the rest")
    func deletedRowDetected() throws {
        let fixture = try Fixture()
        let rows = try fixture.rows()
        try fixture.connection.statement("DELETE FROM programs WHERE token = ?").bind([.blob(rows[0].token)]).run()
        #expect(fixture.listStatus() == .decode)
        #expect(status { try fixture.keychain.registerProgram(Self.program("/usr/bin/new", groups: ["g"])) } == .decode)
        #expect(status { try fixture.keychain.removeProgram(executablePath: Self.notesPath) } == .decode)
        #expect(fixture.listStatus() == .decode)
        // The owner's way out: clear the registry and register again.
        try fixture.keychain.removeAllPrograms()
        #expect(try fixture.keychain.registeredPrograms() == [])
        try fixture.keychain.registerProgram(Self.notes)
        #expect(try fixture.keychain.registeredPrograms() == [Self.notes])
    }

    @Test("two registry rows' sealed bodies swapped: errSecDecode (each body is bound to its row)")
    func swappedBodiesDetected() throws {
        let fixture = try Fixture()
        let rows = try fixture.rows()
        try fixture.setBody(rows[1].body, token: rows[0].token)
        try fixture.setBody(rows[0].body, token: rows[1].token)
        #expect(fixture.listStatus() == .decode)
    }

    @Test("a registry row's body altered by one bit: errSecDecode")
    func alteredBodyDetected() throws {
        let fixture = try Fixture()
        let rows = try fixture.rows()
        var body = rows[0].body
        body[body.startIndex + body.count / 2] ^= 0x01
        try fixture.setBody(body, token: rows[0].token)
        #expect(fixture.listStatus() == .decode)
    }

    @Test("a registry row put back to an earlier registration (authentic, but replaced since): errSecDecode")
    func rolledBackRowDetected() throws {
        let fixture = try Fixture()
        let token = try #require(try fixture.rows().first { try fixture.keychain.store.openProgram(token: $0.token, body: $0.body) == Self.mail }?.token)
        let earlier = try #require(try fixture.rows().first { $0.token == token }?.body)
        // The owner narrows the program's groups; the earlier, wider registration is put back.
        try fixture.keychain.registerProgram(Self.program(Self.mailPath, groups: ["TEAM4711.narrow"]))
        try fixture.setBody(earlier, token: token)
        #expect(fixture.listStatus() == .decode)
    }

    @Test("a row added with another row's body under a new token, or a whole row copied in, is errSecDecode")
    func addedRowDetected() throws {
        let fixture = try Fixture()
        let rows = try fixture.rows()
        var token = rows[0].token
        token[token.startIndex] ^= 0xff
        try fixture.connection.statement("INSERT INTO programs(token, body) VALUES (?, ?)").bind([.blob(token), .blob(rows[0].body)]).run()
        #expect(fixture.listStatus() == .decode)
    }

    @Test("a ledger rebuilt after its root was damaged does not vouch for an altered registry")
    func rebuildDoesNotVouch() throws {
        let fixture = try Fixture()
        let rows = try fixture.rows()
        try fixture.connection.statement("DELETE FROM programs WHERE token = ?").bind([.blob(rows[0].token)]).run()
        // The root's MAC no longer verifies: the next write rebuilds the ledger from the rows.
        var root = try #require(try fixture.connection.statement("SELECT body FROM ledger WHERE id = 0").rows { $0.blob(0) }.first ?? nil)
        root[root.startIndex + root.count - 1] ^= 0x01
        try fixture.connection.statement("UPDATE ledger SET body = ? WHERE id = 0").bind([.blob(root)]).run()
        _ = try fixture.keychain.addPassword(service: "svc", account: "after-rebuild", secret: "s")
        #expect(fixture.listStatus() == .decode)
    }

    @Test("a version-6 keychain is upgraded: its items stay, and its registry starts empty and works")
    func upgradeFromVersion6() throws {
        let temporary = try TemporaryKeychain()
        _ = try temporary.keychain.addPassword(service: "svc", account: "acct", secret: "kept")
        try temporary.sql("DROP TABLE programs; PRAGMA user_version = 6")
        let upgraded = try temporary.reopened()
        #expect(try KeychainStore.version(in: SQLiteConnection(path: upgraded.path)) == KeychainStore.schemaVersion)
        var lookup = ItemRequest(itemClass: .genericPassword)
        lookup.attributes = ["svce": .string("svc"), "acct": .string("acct")]
        lookup.returns = [.data]
        #expect(try upgraded.search(lookup, context: TemporaryKeychain.context).first?.data == Data("kept".utf8))
        #expect(try upgraded.registeredPrograms() == [])
        try upgraded.registerProgram(Self.mail)
        #expect(try upgraded.registeredPrograms() == [Self.mail])
    }

    @Test("a restore (every item replaced) keeps the registry, still verified")
    func restoreKeepsRegistry() throws {
        let fixture = try Fixture()
        _ = try fixture.keychain.addPassword(service: "svc", account: "acct", secret: "s")
        let backup = fixture.temporary.directory + "/registry.backup"
        _ = try fixture.keychain.backup(to: backup, password: Data("pw".utf8))
        _ = try fixture.keychain.restore(from: backup, password: Data("pw".utf8))
        #expect(try fixture.keychain.registeredPrograms() == [Self.mail, Self.notes])
    }
}
