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
        #expect(first.output == "sync schema version \(SyncSchema.currentVersion) created\n")
        #expect(first.error.isEmpty)
        let again = try device.run("sync", "init-server", server.conninfo())
        #expect(again.output == "sync schema version \(SyncSchema.currentVersion) is current\n")
        let admin = try PostgresConnection(server.conninfo())
        try admin.execute("UPDATE keychain_sync.schema_version SET version = 99")
        let newer = try device.run("sync", "init-server", server.conninfo())
        #expect(newer.status == 1)
        #expect(newer.error == "security: sync init-server: the server's sync schema is version 99, newer than this tool's \(SyncSchema.currentVersion)\n")
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
        #expect(try device.run("sync", "join", "--server", "host=127.0.0.1").status == 2)
    }
}
