import Foundation
import Testing

@testable import KeychainCore

/// Files 0600, directories 0700, and no keychain others can write (docs/reliability.md §5).
@Suite("File permissions")
struct FilePermissionTests {
    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("the keychain's directory is 0700 and every file in it 0600, even under a permissive umask")
    func privateUnderPermissiveUmask() throws {
        let directory = try TemporaryDirectory("perm-umask")
        let home = directory.file("home")
        let command = "umask 000; exec '\(Executables.security)' add-generic-password -a me -s svc -w pw"
        let run = try ChildProcess("/bin/sh", ["-c", command], environment: ["XDG_DATA_HOME": home], in: directory.path)
        run.wait()
        #expect(run.exitCode == 0, "\(run.error)")
        let keychainDirectory = home + "/swift-keychain"
        #expect(try mode(keychainDirectory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: keychainDirectory)
        #expect(Set(["login.keychain-db", "login.keychain-db.keybag", "device.key"]).isSubset(of: files))
        for file in files {
            #expect(try mode(keychainDirectory + "/" + file) == 0o600, "\(file)")
        }
    }

    @Test(
        "a keychain whose directory, database, keybag or device key others can write is refused",
        arguments: [("directory", 0o770), ("directory", 0o702), ("database", 0o620), ("database", 0o606),
                    ("keybag", 0o660), ("keybag", 0o602), ("device key", 0o620), ("device key", 0o606)])
    func writableByOthersIsRefused(part: String, mode: Int) throws {
        let directory = try TemporaryDirectory("perm-refuse")
        let keychainDirectory = directory.file("keychains")
        let path = keychainDirectory + "/k.keychain-db"
        // Create it in another process, so this process opens it afresh.
        let home = directory.file("home")
        let created = try Executables.runSecurity(
            ["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw"], home: home, in: directory.path)
        try #require(created.exitCode == 0)
        try FileManager.default.moveItem(atPath: home + "/swift-keychain", toPath: keychainDirectory)
        try FileManager.default.moveItem(atPath: keychainDirectory + "/login.keychain-db", toPath: path)
        try FileManager.default.moveItem(atPath: keychainDirectory + "/login.keychain-db.keybag", toPath: path + ".keybag")
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.moveItem(atPath: keychainDirectory + "/login.keychain-db" + suffix, toPath: path + suffix)
        }
        let target = [
            "directory": keychainDirectory, "database": path, "keybag": path + ".keybag",
            "device key": keychainDirectory + "/device.key",
        ][part]!
        chmod(target, mode_t(mode))

        #expect(throws: KeychainError(.notAvailable, "refusing a keychain path that other users can write")) {
            _ = try Keychain.open(path: path, create: false)
        }
        let find = try Executables.runSecurity(["find-generic-password", "-a", "me", path], home: home, in: directory.path)
        #expect(find.exitCode != 0 && !find.output.contains("pw"), "the security command used it: \(find.output)")
        chmod(target, mode_t(part == "directory" ? 0o700 : 0o600))
        #expect(try Keychain.open(path: path, create: false).path == path, "restored modes are accepted")
    }
}
