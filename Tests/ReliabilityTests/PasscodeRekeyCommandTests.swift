import Foundation
import Testing

@testable import KeychainCore
import KeychainSQLite

/// The attack on an old keybag copy, run as a user would run it with the `security` command.
@Suite("An old keybag copy, through the security command")
struct PasscodeRekeyCommandTests {
    @Test("a keybag copied before set-keychain-password does not reveal an item added after it")
    func oldKeybagCopyRevealsNothing() throws {
        let directory = try TemporaryDirectory("rekey-cli")
        let home = directory.file("home")
        let keybag = home + "/swift-keychain/login.keychain-db.keybag"
        func security(_ arguments: String..., input: String? = nil) throws -> ChildProcess {
            try Executables.runSecurity(arguments, home: home, input: input, in: directory.path)
        }
        #expect(try security("add-generic-password", "-a", "me", "-s", "old", "-w", "old-secret").exitCode == 0)
        let copy = try #require(FileManager.default.contents(atPath: keybag))
        #expect(try security("set-keychain-password", "-o", "", "-p", "Str0ng-pass").exitCode == 0)
        let add = try security("add-generic-password", "-a", "me", "-s", "new", "-w", "NEW-SECRET", "-e", "ak", input: "Str0ng-pass\n")
        #expect(add.exitCode == 0, "\(add.error)")

        try copy.write(to: URL(fileURLWithPath: keybag))
        let find = try security("find-generic-password", "-a", "me", "-s", "new", "-w", input: "")
        #expect(find.exitCode == 49, "errSecInvalidKeychain: \(find.error)")
        #expect(!(find.output + find.error).contains("NEW-SECRET"))

        // Editing the database to name the old keybag does not help: its keys open nothing
        // written since the passcode was set.
        let uuid = try Keybag.decode(copy, deviceKey: try FileDeviceKey(directory: home + "/swift-keychain").deviceKey()).uuid
        let connection = try SQLiteConnection(path: home + "/swift-keychain/login.keychain-db")
        try connection.statement("UPDATE keychain SET value = ? WHERE key = 'keybag-uuid'").bind([.blob(uuid)]).run()
        let edited = try security("find-generic-password", "-a", "me", "-s", "new", "-w", input: "")
        #expect(edited.exitCode == 93, "errSecDecode: \(edited.error)")
        #expect(!(edited.output + edited.error).contains("NEW-SECRET"))
    }
}
