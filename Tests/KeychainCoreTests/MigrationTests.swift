import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// The upgrade of keychains in the project's first storage format (version 1).
/// `Tests/TestVectors/v1-keychain` holds one such keychain (database and root-key file), made by
/// the code that wrote that format, and what it held.
@Suite("Version-1 keychains are upgraded in place")
struct MigrationTests {
    static let fixture = TestVectors.directory.appendingPathComponent("v1-keychain")

    /// A copy of the version-1 keychain in a fresh 0700 directory.
    static func copyOfFixture() throws -> String {
        let directory = TemporaryKeychain.newDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in ["login.keychain-db", "login.keychain-db.key"] {
            try FileManager.default.copyItem(atPath: fixture.appendingPathComponent(name).path, toPath: directory + "/" + name)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/" + name)
        }
        return directory + "/login.keychain-db"
    }

    static func schemaVersion(_ path: String) throws -> Int64 {
        try KeychainStore.version(in: SQLiteConnection(path: path))
    }

    /// Every item, rendered as the fixture's `expected-items.txt` renders them.
    static func rendered(_ keychain: Keychain) throws -> String {
        let items = try keychain.allItemsWithDamage(
            context: AccessContext(accessGroups: ["*"]), includingData: true, includingGuardedSecrets: true
        ).items
        return items.map { item in
            var lines = ["class \(item.itemClass.rawValue) ref \(item.persistentReference!.hex)"]
            for (name, value) in (item.attributes ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("  \(name) = \(text(value))")
            }
            lines.append("  accc = \(item.accessControl.map { "\($0.protection.rawValue) \($0.flags.rawValue)" } ?? "nil")")
            lines.append("  data = \(item.data.map(\.hex) ?? "nil")")
            return lines.joined(separator: "\n")
        }.joined(separator: "\n") + "\n"
    }

    private static func text(_ value: AttributeValue) -> String {
        switch value {
        case .string(let text): return "string \(text)"
        case .integer(let number): return "integer \(number)"
        case .data(let data): return "data \(data.hex)"
        case .date(let date): return "date \(date.timeIntervalSinceReferenceDate)"
        }
    }

    @Test("the fixture really is a version-1 keychain")
    func fixtureIsVersion1() throws {
        let path = try Self.copyOfFixture()
        #expect(try Self.schemaVersion(path) == 1)
        #expect(FileManager.default.fileExists(atPath: path + ".key"))
    }

    @Test("opening a version-1 keychain upgrades it with nothing lost: every item, attribute, reference and secret")
    func upgradeKeepsEverything() throws {
        let path = try Self.copyOfFixture()
        let keychain = try Keychain.open(path: path, create: false, options: TemporaryKeychain.options)
        let expected = try String(contentsOf: Self.fixture.appendingPathComponent("expected-items.txt"), encoding: .utf8)
        #expect(try Self.rendered(keychain) == expected)
        #expect(try Self.schemaVersion(path) == KeychainStore.schemaVersion)
        #expect(!FileManager.default.fileExists(atPath: path + ".key"))
        #expect(FileManager.default.fileExists(atPath: path + ".keybag"))
        // The upgraded keychain works like any other: lookups by key, adds, duplicates, access groups.
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string("v1.group2")
        request.attributes["acct"] = .string("mallory")
        request.returns = [.data]
        let groupTwo = AccessContext(accessGroups: ["group.two"])
        #expect(try keychain.search(request, context: groupTwo).first?.data == Data("group2-secret".utf8))
        var duplicate = ItemRequest(itemClass: .genericPassword)
        duplicate.attributes["svce"] = .string("mail.example")
        duplicate.attributes["acct"] = .string("alice")
        duplicate.secret = Data("again".utf8)
        #expect(status { _ = try keychain.add(duplicate, context: AccessContext(accessGroups: ["group.one"])) } == .duplicateItem)
        // A second process sees the upgraded keychain the same way.
        Keychain.forgetOpenInstance(path: path)
        #expect(try Self.rendered(try Keychain.open(path: path, create: false, options: TemporaryKeychain.options)) == expected)
    }

    @Test("an upgrade that fails part-way changes nothing, and the next open completes it")
    func interruptedUpgrade() throws {
        let path = try Self.copyOfFixture()
        let before = try #require(FileManager.default.contents(atPath: path))
        var failing = TemporaryKeychain.options
        failing.migrationFailureAfterRows = 5
        #expect(status { _ = try Keychain.open(path: path, create: false, options: failing) } == .internal)
        #expect(try Self.schemaVersion(path) == 1)
        #expect(FileManager.default.fileExists(atPath: path + ".key"))
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(FileManager.default.contents(atPath: path) == before)
        let keychain = try Keychain.open(path: path, create: false, options: TemporaryKeychain.options)
        let expected = try String(contentsOf: Self.fixture.appendingPathComponent("expected-items.txt"), encoding: .utf8)
        #expect(try Self.rendered(keychain) == expected)
    }

    @Test("a version-1 keychain whose key file is missing or foreign is refused, not emptied")
    func missingOrForeignKeyFile() throws {
        let path = try Self.copyOfFixture()
        try FileManager.default.removeItem(atPath: path + ".key")
        #expect(status { _ = try Keychain.open(path: path, create: false, options: TemporaryKeychain.options) } == .invalidKeychain)
        var foreign = Data("SKC-ROOT-KEY-v1\n".utf8)
        foreign.append(Data(repeating: 7, count: 32))
        try foreign.write(to: URL(fileURLWithPath: path + ".key"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + ".key")
        #expect(status { _ = try Keychain.open(path: path, create: false, options: TemporaryKeychain.options) } == .invalidKeychain)
        #expect(try Self.schemaVersion(path) == 1)
    }
}
