import Foundation
import Testing

@testable import KeychainSync

/// Devices exchanging synchronizable items through a real PostgreSQL server, with the `security`
/// binary (embedded or through each device's keychaind, as `KEYCHAIN_MODE` says).
@Suite("Sync between devices", .serialized)
struct SyncExchangeTests {
    @Test("an item added, changed and deleted on one device reaches the other two; local items stay home")
    func addChangeDeleteReachOtherDevices() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b, c) = (try SyncDevice(), try SyncDevice(), try SyncDevice())
        defer { [a, b, c].forEach { $0.stop() } }
        try server.enroll(a, b, c)

        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "first-secret").status == 0)
        #expect(try a.run("add-generic-password", "-a", "me", "-s", "local-only", "-w", "stays-here").status == 0)
        #expect(try a.run("add-generic-password", "-a", "me", "-s", "mail", "-w", "local-twin").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        for device in [b, c] {
            #expect(try device.run("sync", "now").status == 0)
            #expect(try device.password("me", "mail") == "first-secret")
            #expect(try device.password("me", "local-only") == nil)
        }

        #expect(try b.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "second-secret").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        for device in [a, c] { #expect(try device.run("sync", "now").status == 0) }
        // The synchronizable item changed; the non-synchronizable item with the same account and
        // service on device A is another item (synchronizable is part of the primary key).
        let onA = try a.run("find-generic-password", "-a", "me", "-s", "mail", "-w")
        #expect(onA.status == 0)
        #expect(try c.password("me", "mail") == "second-secret")

        #expect(try c.run("delete-generic-password", "-a", "me", "-s", "mail").status == 0)
        #expect(try c.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.password("me", "mail") == nil)
        #expect(try a.run("sync", "now").status == 0)
        // Device A keeps only its local twin.
        #expect(try a.password("me", "mail") == "local-twin")
        #expect(try a.password("me", "local-only") == "stays-here")
        let status = try a.run("sync", "status")
        #expect(status.output.contains("devices: 3\n"))
        #expect(status.output.contains("pending changes: 0\n"))
        #expect(!status.output.contains("NOT TRUSTED"))
        #expect(status.output.split(separator: "\n").filter { $0.hasSuffix(" trusted") }.count == 3)
    }

    @Test("an internet password travels with its server, port, protocol, path and comment")
    func internetPasswordTravels() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)
        let add = try a.run(
            "add-internet-password", "-S", "-a", "me", "-s", "example.com", "-P", "8443", "-r", "htps", "-p", "/login",
            "-j", "work account", "-e", "ck", "-w", "web-secret")
        #expect(add.status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        let found = try b.run("find-internet-password", "-a", "me", "-s", "example.com", "-P", "8443", "-g")
        #expect(found.status == 0)
        #expect(found.error.contains("password: \"web-secret\""))
        #expect(found.output.contains("\"port\"<uint32>=0x000020FB"))
        #expect(found.output.contains("\"ptcl\"<uint32>=\"htps\""))
        #expect(found.output.contains("\"path\"<blob>=\"/login\""))
        #expect(found.output.contains("\"icmt\"<blob>=\"work account\""))
        #expect(try b.run("sync", "now").output == "uploaded 0 changes and 0 deletions; applied 0 changes and 0 deletions\n")
    }

    @Test("a device joining with a wrong recovery secret gets nothing and is not added")
    func wrongRecoverySecretJoinsNothing() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "bank", "-w", "pin-1234").status == 0)
        #expect(try a.run("sync", "now").status == 0)

        let wrong = b.home + "/wrong-secret"
        try Data("aaaa-bbbb-cccc-dddd-eeee-ffff-gg\n".utf8).write(to: URL(fileURLWithPath: wrong))
        let join = try b.run("sync", "join", "--server", server.conninfo(), "--recovery-secret-file", wrong)
        #expect(join.status == 1)
        #expect(join.error.contains("the recovery secret does not open this account's escrow"))
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("does not sync"))
        #expect(try b.password("me", "bank") == nil)
        #expect(try server.admin.execute("SELECT count(*) AS n FROM keychain_sync.device").integer(0, "n") == 1)
    }

    @Test("adds of one primary key on two devices converge on every device")
    func collidingAddsConverge() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "wifi", "-w", "from-a").status == 0)
        #expect(try b.run("add-generic-password", "-S", "-a", "me", "-s", "wifi", "-w", "from-b").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        let (onA, onB) = (try a.password("me", "wifi"), try b.password("me", "wifi"))
        #expect(onA != nil && onA == onB)
        #expect(try server.admin.execute("SELECT count(*) AS n FROM keychain_sync.record WHERE NOT deleted").integer(0, "n") == 1)
    }

    @Test("accounts are isolated: another role sees none of the account's rows and cannot join it")
    func accountsAreIsolated() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "secret").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        let bob = try PostgresConnection(server.conninfo("bob"))
        for table in ["account", "device", "device_list", "sync_key", "record"] {
            #expect(try bob.execute("SELECT count(*) AS n FROM keychain_sync.\(table)").integer(0, "n") == 0)
        }
        #expect(try bob.execute("UPDATE keychain_sync.record SET generation = generation + 1").affected == 0)
        let secretFile = a.home + "/recovery-secret"
        let join = try b.run("sync", "join", "--server", server.conninfo("bob"), "--recovery-secret-file", secretFile)
        #expect(join.status == 1)
        #expect(join.error.contains("holds no account for this role"))
    }
}
