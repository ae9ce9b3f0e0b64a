import Foundation
import Testing

/// `backup-keychain` and `restore-keychain`, on this "device" and on another (another home, so
/// another device key), through the built binary.
@Suite struct BackupCommandTests {
    let tool: SecurityBinary
    init() throws {
        tool = try SecurityBinary()
        #expect(try tool.run("create-keychain", "-p", "1234", "k").status == 0)
        for code in ["ak", "ck", "dk", "aku", "cku", "dku", "akpu"] {
            #expect(try tool.run("add-generic-password", "-a", "me", "-s", code, "-e", code, "-w", "secret-\(code)", "k", input: "1234\n").status == 0)
        }
    }

    var backup: String { tool.home + "/k.backup" }

    @Test func backupSaysWhatItLeftOut() throws {
        tool.startsLocked()
        let run = try tool.run("backup-keychain", "-P", "backup-pass", "-o", backup, "k", input: "1234\n")
        #expect(run.status == 0)
        #expect(run.output == """
            6 items backed up to \(backup)
            1 item left out: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly items are never backed up

            """)
        #expect(run.error == "password to unlock k: ")
        #expect(try tool.run("backup-keychain", "-P", "x", "k").status == 2)
        tool.startsLocked()
        let locked = try tool.run("backup-keychain", "-P", "x", "-o", tool.home + "/other.backup", "k", input: "")
        #expect(locked.status == 36)
    }

    @Test func restoreOnAnotherDeviceLeavesThisDeviceOnlyItemsOut() throws {
        #expect(try tool.run("backup-keychain", "-P", "backup-pass", "-o", backup, "k", input: "1234\n").status == 0)
        let otherDevice = try SecurityBinary()
        let wrong = try otherDevice.run("restore-keychain", "-P", "nope", backup)
        #expect(wrong.status == 51)
        #expect(wrong.error == "security: restore-keychain: The user name or passphrase you entered is not correct.\n")
        let restored = try otherDevice.run("restore-keychain", backup, input: "backup-pass\n")
        #expect(restored.status == 0)
        #expect(restored.error == "passphrase for backup: ")
        #expect(restored.output == "3 items restored\n3 items left out: ThisDeviceOnly items restore only on the device that made the backup\n")
        for code in ["ak", "ck", "dk"] {
            #expect(try otherDevice.run("find-generic-password", "-a", "me", "-s", code, "-w").output == "secret-\(code)\n")
        }
        for code in ["aku", "cku", "dku", "akpu"] {
            #expect(try otherDevice.run("find-generic-password", "-a", "me", "-s", code).status == 44)
        }
    }

    @Test func restoreOnTheSameDeviceBringsThisDeviceOnlyItemsBack() throws {
        #expect(try tool.run("backup-keychain", "-P", "backup-pass", "-o", backup, "k", input: "1234\n").status == 0)
        let restored = try tool.run("restore-keychain", "-P", "backup-pass", backup)
        #expect(restored.status == 0)
        #expect(restored.output == "6 items restored\n")
        for code in ["ak", "ck", "dk", "aku", "cku", "dku"] {
            #expect(try tool.run("find-generic-password", "-a", "me", "-s", code, "-w").output == "secret-\(code)\n")
        }
    }

    @Test func aDamagedBackupChangesNothing() throws {
        #expect(try tool.run("backup-keychain", "-P", "backup-pass", "-o", backup, "k", input: "1234\n").status == 0)
        var bytes = try #require(FileManager.default.contents(atPath: backup))
        bytes[bytes.count - 100] ^= 0x10
        try bytes.write(to: URL(fileURLWithPath: backup))
        let otherDevice = try SecurityBinary()
        #expect(try otherDevice.run("add-generic-password", "-a", "me", "-s", "kept", "-w", "kept").status == 0)
        let run = try otherDevice.run("restore-keychain", "-P", "backup-pass", backup)
        #expect(run.status == 93)
        #expect(try otherDevice.run("find-generic-password", "-s", "kept", "-w").output == "kept\n")
    }
}
