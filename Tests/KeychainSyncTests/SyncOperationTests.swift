import Foundation
import Testing

@testable import KeychainSync

/// The server's schema and what a device does when the server is not there.
@Suite("Sync operations", .serialized)
struct SyncOperationTests {
    @Test("init-server creates the schema once, then finds it current; a newer schema is refused")
    func initServerIsVersioned() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let device = try SyncDevice()
        defer { device.stop() }
        let first = try device.run("sync", "init-server", server.conninfo())
        #expect(first.status == 0)
        #expect(first.output == "sync schema version 4 created\n")
        #expect(first.error.isEmpty)
        let again = try device.run("sync", "init-server", server.conninfo())
        #expect(again.output == "sync schema version 4 is current\n")
        let admin = try PostgresConnection(server.conninfo())
        try admin.execute("UPDATE keychain_sync.schema_version SET version = 99")
        let newer = try device.run("sync", "init-server", server.conninfo())
        #expect(newer.status == 1)
        #expect(newer.error == "security: sync init-server: the server's sync schema is version 99, newer than this tool's 4\n")
    }

    /// Installs the schema at `version` by its own migrations, as an older build would have, with
    /// one account row.
    private func installSchema(at version: Int, on admin: PostgresConnection) throws {
        try admin.execute("CREATE SCHEMA keychain_sync")
        try admin.execute("CREATE TABLE keychain_sync.schema_version (version integer NOT NULL)")
        for step in 1...version {
            for statement in SyncSchema.migrations[step] ?? [] { try admin.execute(statement) }
        }
        try admin.execute("INSERT INTO keychain_sync.schema_version VALUES ($1::bigint)", [.integer(Int64(version))])
        try admin.execute(
            "INSERT INTO keychain_sync.account (account_id, bottle_salt, bottle_cost, bottle) VALUES ($1, '\\x00', 15, '\\x00')",
            [.uuid(UUID())])
    }

    @Test("init-server upgrades a version 1 schema to version 4, keeping its rows")
    func initServerUpgradesFromOne() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let admin = try PostgresConnection(server.conninfo())
        try installSchema(at: 1, on: admin)
        let device = try SyncDevice()
        defer { device.stop() }
        let upgrade = try device.run("sync", "init-server", server.conninfo())
        #expect(upgrade.output == "sync schema upgraded from version 1 to 4\n")
        #expect(try admin.execute("SELECT key_epoch FROM keychain_sync.account").integer(0, "key_epoch") == 1)
        #expect(try admin.execute("SELECT gc_horizon FROM keychain_sync.account").integer(0, "gc_horizon") == 0)
        #expect(try admin.execute("SELECT count(*) AS n FROM keychain_sync.join_request").integer(0, "n") == 0)
        #expect(try admin.execute("SELECT count(*) AS n FROM keychain_sync.manifest").integer(0, "n") == 0)
    }

    @Test("init-server upgrades a version 2 (device trust) schema to version 4, keeping its rows")
    func initServerUpgradesFromTwo() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let admin = try PostgresConnection(server.conninfo())
        try installSchema(at: 2, on: admin)
        try admin.execute("UPDATE keychain_sync.account SET key_epoch = 4")
        let device = try SyncDevice()
        defer { device.stop() }
        let upgrade = try device.run("sync", "init-server", server.conninfo())
        #expect(upgrade.output == "sync schema upgraded from version 2 to 4\n")
        #expect(try admin.execute("SELECT key_epoch FROM keychain_sync.account").integer(0, "key_epoch") == 4)
        #expect(try admin.execute("SELECT gc_horizon FROM keychain_sync.account").integer(0, "gc_horizon") == 0)
        #expect(try admin.execute("SELECT count(*) AS n FROM keychain_sync.manifest").integer(0, "n") == 0)
        #expect(try admin.execute("SELECT count(*) AS n FROM keychain_sync.checkpoint").integer(0, "n") == 0)
        let again = try device.run("sync", "init-server", server.conninfo())
        #expect(again.output == "sync schema version 4 is current\n")
    }

    @Test("with the server down, writes succeed locally, sync now fails clearly and status counts them as pending")
    func serverDownKeepsLocalWrites() throws {
        let server = try SyncServer()
        let device = try SyncDevice()
        defer { device.stop() }
        try server.enroll(device)
        #expect(try device.run("sync", "now").status == 0)
        server.stop()
        #expect(try device.run("add-generic-password", "-S", "-a", "me", "-s", "offline", "-w", "queued").status == 0)
        let now = try device.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.hasPrefix("security: sync now: cannot connect to the sync server"))
        #expect(!now.error.contains("host="))
        #expect(try device.password("me", "offline") == "queued")
        let status = try device.run("sync", "status")
        #expect(status.status == 0)
        #expect(status.output.contains("pending changes: 1\n"))
        #expect(status.output.contains("devices: unknown (cannot connect"))
    }

    @Test("an unknown sync action or a missing option is bad usage (exit 2)")
    func badUsage() throws {
        let device = try SyncDevice()
        defer { device.stop() }
        #expect(try device.run("sync").status == 2)
        #expect(try device.run("sync", "frobnicate").status == 2)
        #expect(try device.run("sync", "enable").status == 2)
        #expect(try device.run("sync", "join", "--recovery-secret-file", "/dev/null").status == 2)
        #expect(try device.run("sync", "join", "--server", "host=127.0.0.1", "--timeout", "soon").status == 2)
        #expect(try device.run("sync", "approve").status == 2)
        #expect(try device.run("sync", "remove").status == 2)
    }
}
