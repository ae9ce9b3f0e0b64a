import Foundation
import Testing

/// A keychain written by the previous version (Tests/TestVectors/v1-keychain) opens through the
/// tool, upgraded in place, and dumps exactly as that version dumped it, except that the secret
/// of its item with `.userPresence` (service `v1.acl`) is no longer dumped: access control now
/// guards it.
@Suite struct UpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TestVectors/v1-keychain")

    @Test func aVersion1LoginKeychainDumpsAsBeforeTheUpgrade() throws {
        let tool = try SecurityBinary()
        let directory = tool.home + "/swift-keychain"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in ["login.keychain-db", "login.keychain-db.key"] {
            try FileManager.default.copyItem(atPath: Self.fixture.appendingPathComponent(name).path, toPath: directory + "/" + name)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/" + name)
        }
        let expected = try String(contentsOf: Self.fixture.appendingPathComponent("expected-dump.txt"), encoding: .utf8)
            .replacingOccurrences(of: "<KEYCHAIN>", with: tool.defaultKeychainPath)
            .replacingOccurrences(of: "data:\n\"acl-secret\"\n", with: "data:\n\n")
        let dump = try tool.run("dump-keychain", "-d")
        #expect(dump.status == 0)
        #expect(dump.output == expected)
        #expect(!FileManager.default.fileExists(atPath: directory + "/login.keychain-db.key"))
        #expect(try tool.run("find-generic-password", "-a", "alice", "-s", "mail.example", "-w").output == "alice-mail-secret\n")
    }
}
