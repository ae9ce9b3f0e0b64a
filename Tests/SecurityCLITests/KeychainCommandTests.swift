import Foundation
import Testing

/// The keychain commands (create, list, default, settings, info, delete), through the built binary.
@Suite struct KeychainCommandTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    var directory: String { tool.home + "/swift-keychain" }

    @Test func createKeychainWithPasswordJoinsTheSearchList() throws {
        let created = try tool.run("create-keychain", "-p", "1234", "work")
        #expect(created.status == 0)
        #expect(created.output.isEmpty && created.error.isEmpty)
        #expect(FileManager.default.fileExists(atPath: directory + "/work.keychain-db"))
        #expect(FileManager.default.fileExists(atPath: directory + "/work.keychain-db.keybag"))
        let list = try tool.run("list-keychains")
        #expect(list.output == "    \"\(directory)/login.keychain-db\"\n    \"\(directory)/work.keychain-db\"\n")
    }

    @Test func creatingAnExistingKeychainIsErrSecDuplicateKeychain() throws {
        #expect(try tool.run("create-keychain", "-p", "1", "work").status == 0)
        let again = try tool.run("create-keychain", "-p", "2", "work")
        #expect(again.status == 48)
        #expect(again.error == "security: SecKeychainCreate work: A keychain with the same name already exists.\n")
    }

    @Test func createKeychainAsksForThePasswordTwice() throws {
        let prompts = "password for new keychain: retype password for new keychain: "
        let mismatch = try tool.run("create-keychain", "k1", input: "one\ntwo\nthree\nthree\n")
        #expect(mismatch.status == 0)
        #expect(mismatch.error == prompts + "passwords don't match\n" + prompts)
        #expect(try tool.run("unlock-keychain", "-p", "three", "k1").status == 0)
        let named = try tool.run("create-keychain", input: "k2\npw\npw\n")
        #expect(named.status == 0)
        #expect(named.error == "keychain to create: " + prompts)
        #expect(FileManager.default.fileExists(atPath: directory + "/k2.keychain-db"))
    }

    @Test func showKeychainInfoPrintsTheSettingsOnStandardError() throws {
        #expect(try tool.run("create-keychain", "-p", "1", "k").status == 0)
        let fresh = try tool.run("show-keychain-info", "k")
        #expect(fresh.status == 0)
        // Standard output says who holds the keys and the lock state (a line macOS does not print).
        let holder = ProcessInfo.processInfo.environment["KEYCHAIN_MODE"] == "daemon"
            ? #/device key: in a file \(not bound to a TPM\)\nheld by keychaind \(pid [0-9]+\): (unlocked|locked since start)\n/#
            : #/device key: in a file \(not bound to a TPM\)\nopen in this process: (unlocked|locked since start)\n/#
        #expect(fresh.output.wholeMatch(of: holder) != nil)
        #expect(fresh.error == "Keychain \"k\" no-timeout\n")
        #expect(try tool.run("set-keychain-settings", "-l", "-t", "300", "k").status == 0)
        #expect(try tool.run("show-keychain-info", "k").error == "Keychain \"k\" lock-on-sleep use-lock-interval timeout=300s\n")
        // -u without -t means no timeout, as on macOS.
        #expect(try tool.run("set-keychain-settings", "-u", "k").status == 0)
        #expect(try tool.run("show-keychain-info", "k").error == "Keychain \"k\" no-timeout\n")
        #expect(try tool.run("show-keychain-info").error == "Keychain \"<NULL>\" no-timeout\n")
        #expect(try tool.run("set-keychain-settings", "-t", "soon", "k").status == 2)
        #expect(try tool.run("show-keychain-info", "missing").status == 50)
    }

    @Test func defaultKeychainCanBeSetAndAddsGoThere() throws {
        #expect(try tool.run("default-keychain").output == "    \"\(directory)/login.keychain-db\"\n")
        #expect(try tool.run("create-keychain", "-p", "", "plain").status == 0)
        #expect(try tool.run("default-keychain", "-s", "plain").status == 0)
        #expect(try tool.run("default-keychain").output == "    \"\(directory)/plain.keychain-db\"\n")
        #expect(try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw").status == 0)
        #expect(try tool.run("find-generic-password", "-a", "me", "-s", "svc", "-w", "plain").output == "pw\n")
        #expect(try tool.run("default-keychain", "-s").status == 0)
        #expect(try tool.run("default-keychain").output == "    \"\(directory)/login.keychain-db\"\n")
        #expect(try tool.run("default-keychain", "-d", "system", "-s", "plain").status == 1)
    }

    @Test func listKeychainsCanBeReplaced() throws {
        #expect(try tool.run("create-keychain", "-p", "", "a").status == 0)
        #expect(try tool.run("create-keychain", "-p", "", "b").status == 0)
        #expect(try tool.run("list-keychains", "-s", "b").status == 0)
        #expect(try tool.run("list-keychains").output == "    \"\(directory)/b.keychain-db\"\n")
        #expect(try tool.run("list-keychains", "-d", "system").output.isEmpty)
        let bad = try tool.run("list-keychains", "-d", "galaxy")
        #expect(bad.status == 2)
        #expect(bad.error.hasPrefix("security: Invalid domain: galaxy\nUsage: list-keychains "))
        // find without a keychain searches the list.
        #expect(try tool.run("add-generic-password", "-a", "me", "-s", "in-b", "-w", "pw", "b").status == 0)
        #expect(try tool.run("find-generic-password", "-s", "in-b", "-w").output == "pw\n")
    }

    @Test func deleteKeychainRemovesItsFilesAndListEntry() throws {
        #expect(try tool.run("create-keychain", "-p", "1", "gone").status == 0)
        #expect(try tool.run("delete-keychain", "gone").status == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/gone.keychain-db"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/gone.keychain-db.keybag"))
        #expect(!(try tool.run("list-keychains").output.contains("gone")))
        let again = try tool.run("delete-keychain", "gone")
        #expect(again.status == 50)
        #expect(again.error == "security: SecKeychainDelete: The specified keychain could not be found.\n")
        #expect(try tool.run("delete-keychain").status == 2)
    }

    @Test func aKeychainWithoutAPasswordNeedsNoSetUp() throws {
        #expect(try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-e", "akpu", "-w", "pw").status == 51)
        #expect(try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", "pw").status == 0)
        #expect(try tool.run("lock-keychain").status == 0)
        #expect(try tool.run("find-generic-password", "-a", "me", "-w", input: "").output == "pw\n")
    }
}
