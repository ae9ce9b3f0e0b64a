import Foundation
import Testing

@testable import KeychainCore
import KeychainSQLite

/// A damaged item through the `security` command: errSecDecode for it, the rest readable.
@Suite("Damaged items through the security command")
struct DamagedItemCommandTests {
    @Test("find and delete report errSecDecode (exit 93) for a damaged item; the other items stay readable")
    func damagedItem() throws {
        let keychain = try TwoItemKeychain("damaged-cli")
        let connection = try keychain.database()
        // Byte 31 set to a value it does not hold (a fixed value would change nothing one time in 256).
        try connection.execute(
            """
            UPDATE items SET metadata = substr(metadata, 1, 30)
                || (CASE WHEN substr(metadata, 31, 1) = X'00' THEN X'01' ELSE X'00' END) || substr(metadata, 32)
            WHERE rowid = 1
            """)

        let damaged = try keychain.security("find-generic-password", "-a", "one", "-s", "svc", "-w")
        #expect(damaged.exitCode == 93)
        #expect(damaged.error.contains("Unable to decode the provided data"), "\(damaged.error)")
        #expect(!damaged.output.contains("secret"))
        #expect(try keychain.security("find-generic-password", "-a", "two", "-s", "svc", "-w").output == "second-secret\n")
        let dump = try keychain.security("dump-keychain", "-d")
        #expect(dump.exitCode == 0 && dump.output.contains("second-secret") && !dump.output.contains("first-secret"))
        // The command prints the item it deletes, which it cannot read; SecItemDelete removes it.
        let delete = try keychain.security("delete-generic-password", "-a", "one", "-s", "svc")
        #expect(delete.exitCode == 93 && delete.error.contains("security: the damaged item was deleted"), "\(delete.error)")
        #expect(try keychain.security("delete-generic-password", "-a", "two", "-s", "svc").exitCode == 0)
    }
}

/// Rows removed behind the keychain's back, and a database that lost its contents, through the
/// `security` command: reported as damage, never as absence or as a new empty keychain.
@Suite("Removed rows and lost databases through the security command")
struct RemovedRowCommandTests {
    @Test("a removed row: find exits 93 saying the keychain is damaged, dump-keychain warns, delete by key ends the damage")
    func removedRow() throws {
        let keychain = try TwoItemKeychain("removed-cli")
        let connection = try keychain.database()
        try connection.execute("DELETE FROM items WHERE rowid = 1")

        let find = try keychain.security("find-generic-password", "-a", "one", "-s", "svc", "-w")
        #expect(find.exitCode == 93, "\(find.error)")
        #expect(find.error.contains("security: the keychain is damaged"), "\(find.error)")
        let dump = try keychain.security("dump-keychain", "-d")
        #expect(dump.exitCode == 0 && dump.output.contains("second-secret"))
        #expect(dump.error.contains("is damaged: 1 item is missing from its database"), "\(dump.error)")
        // The command prints the item it deletes, which it cannot read; SecItemDelete removes it.
        let delete = try keychain.security("delete-generic-password", "-a", "one", "-s", "svc")
        #expect(delete.exitCode == 93 && delete.error.contains("security: the damaged item was deleted"), "\(delete.error)")
        #expect(try keychain.security("find-generic-password", "-a", "one", "-s", "svc", "-w").exitCode == 44)
        #expect(try keychain.security("dump-keychain").error.isEmpty)
    }

    @Test("a database copied without its -wal file before anything reached it: security says the keychain is damaged, and creates nothing")
    func lostDatabase() throws {
        let directory = try TemporaryDirectory("lost-database-cli")
        let home = directory.file("home")
        let database = home + "/swift-keychain/login.keychain-db"
        // Through the daemon the files are copied while no daemon holds them (a restart), as they
        // are between two processes that open the keychain themselves.
        let daemon = PrivateDaemon()
        func security(_ arguments: String...) throws -> ChildProcess {
            try Executables.runSecurity(arguments, home: home, environment: daemon.environment, in: directory.path)
        }
        #expect(try security("add-generic-password", "-a", "one", "-s", "svc", "-w", "secret").exitCode == 0)
        daemon.stop()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        #expect(truncate(database, 0) == 0)
        let find = try security("find-generic-password", "-a", "one", "-s", "svc")
        #expect(find.exitCode == 49, "\(find.error)")
        #expect(find.error.contains("the keychain is damaged: its keybag exists but its database holds nothing"), "\(find.error)")
        let add = try security("add-generic-password", "-a", "two", "-s", "svc", "-w", "x")
        #expect(add.exitCode == 49)
        #expect((try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) == 0)
    }
}

/// A default keychain (under its own home) holding two generic passwords of service "svc":
/// account "one" (secret "first-secret", row 1) and "two" ("second-secret"), made through the
/// `security` command.
struct TwoItemKeychain {
    let directory: TemporaryDirectory
    let home: String

    init(_ name: String) throws {
        directory = try TemporaryDirectory(name)
        home = directory.file("home")
        #expect(try security("add-generic-password", "-a", "one", "-s", "svc", "-w", "first-secret").exitCode == 0)
        #expect(try security("add-generic-password", "-a", "two", "-s", "svc", "-w", "second-secret").exitCode == 0)
    }

    /// Runs `security` with `arguments` on this keychain.
    func security(_ arguments: String...) throws -> ChildProcess {
        try Executables.runSecurity(arguments, home: home, in: directory.path)
    }

    /// The keychain's database, opened directly (behind the keychain's back).
    func database() throws -> SQLiteConnection {
        try SQLiteConnection(path: home + "/swift-keychain/login.keychain-db")
    }
}
