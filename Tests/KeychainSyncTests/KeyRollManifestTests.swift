import Foundation
import Testing

@testable import KeychainSync

/// A key roll (`sync remove`) and the account's signed manifest: the roll writes the next manifest,
/// under the new TLK, listing the records at the generations it sealed them at, so the remaining
/// devices verify their next download; and it refuses to sign over records the server withholds.
@Suite("Key roll and the manifest", .serialized)
struct KeyRollManifestTests {
    /// The manifest row as the superuser sees it.
    static func manifest(_ server: SyncServer) throws -> (version: Int64, count: Int64, signer: String) {
        let rows = try server.admin.execute("SELECT version, record_count, signer FROM keychain_sync.manifest")
        return (try rows.integer(0, "version"), try rows.integer(0, "record_count"), try rows.string(0, "signer"))
    }

    @Test("after a removal a remaining device's exchange verifies the manifest the roll signed under the new keys")
    func remainingDeviceVerifiesTheRolledManifest() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b, c) = (try SyncDevice(), try SyncDevice(), try SyncDevice())
        defer { [a, b, c].forEach { $0.stop() } }
        try server.enroll(a, b, c)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "one").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "bank", "-w", "two").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "gone", "-w", "three").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try a.run("delete-generic-password", "-a", "me", "-s", "gone").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        for device in [b, c] { #expect(try device.run("sync", "now").status == 0) }
        let before = try Self.manifest(server)
        #expect(before.count == 2)

        let aID = try DeviceTrustTests.deviceID(of: a)
        let remove = try a.run("sync", "remove", try DeviceTrustTests.deviceID(of: b))
        #expect(remove.status == 0, "\(remove.error)")
        // The roll wrote the next version, as A, over the same live records (tombstones are not in it).
        let after = try Self.manifest(server)
        #expect(after.version == before.version + 1)
        #expect(after.count == 2)
        #expect(after.signer == aID)

        // C takes the new keys, then verifies the manifest under them: nothing refused.
        let onC = try c.run("sync", "now")
        #expect(onC.status == 0, "\(onC.error)")
        #expect(!onC.error.contains("manifest"))
        #expect(try c.password("me", "mail") == "one")
        #expect(try c.password("me", "bank") == "two")
        #expect(try c.password("me", "gone") == nil)
        #expect(!(try c.run("sync", "status").output.contains("last error")))
        // And A's next exchange (its own roll's manifest) as well; changes keep flowing both ways.
        #expect(try c.run("add-generic-password", "-S", "-a", "me", "-s", "from-c", "-w", "four").status == 0)
        #expect(try c.run("sync", "now").status == 0)
        let onA = try a.run("sync", "now")
        #expect(onA.status == 0, "\(onA.error)")
        #expect(try a.password("me", "from-c") == "four")
    }

    @Test("after a roll, a re-sealed record the server withholds is still detected by the remaining devices")
    func withheldRecordAfterRollIsDetected() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b, c) = (try SyncDevice(), try SyncDevice(), try SyncDevice())
        defer { [a, b, c].forEach { $0.stop() } }
        try server.enroll(a, b, c)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "one").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "bank", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try c.run("sync", "now").status == 0)
        #expect(try a.run("sync", "remove", try DeviceTrustTests.deviceID(of: b)).status == 0)
        // The server hides one re-sealed record's new generation from C (its row put back below C's sequence).
        let hidden = try server.admin.execute(
            "UPDATE keychain_sync.record SET change_seq = 1 WHERE change_seq = (SELECT max(change_seq) FROM keychain_sync.record)")
        #expect(hidden.affected == 1)
        let now = try c.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("the server's records do not match the account's signed manifest"))
        #expect(try c.password("me", "mail") == "one")
        #expect(try c.password("me", "bank") == "two")
    }

    @Test("a removal refuses to roll when the server withholds a record the manifest lists, and rolls nothing")
    func rollRefusesWithheldRecord() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "one").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "bank", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        let before = try Self.manifest(server)
        try server.admin.execute("CREATE TABLE withheld AS SELECT * FROM keychain_sync.record WHERE change_seq = (SELECT max(change_seq) FROM keychain_sync.record)")
        try server.admin.execute("DELETE FROM keychain_sync.record r USING withheld w WHERE r.record_id = w.record_id")
        let remove = try a.run("sync", "remove", try DeviceTrustTests.deviceID(of: b))
        #expect(remove.status == 1)
        #expect(remove.error.contains("the server's records do not match the account's signed manifest"))
        #expect(try server.admin.execute("SELECT key_epoch FROM keychain_sync.account").integer(0, "key_epoch") == 1)
        #expect(try Self.manifest(server).version == before.version)
        #expect(try DeviceTrustTests.count(server, "keychain_sync.device") == 2)
        #expect(try a.password("me", "mail") == "one")
        #expect(try a.password("me", "bank") == "two")
    }

    @Test("after a removal, devices joining by approval and by the new recovery secret verify the rolled manifest on their first exchange")
    func joiningDevicesVerifyTheRolledManifest() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b, c, d) = (try SyncDevice(), try SyncDevice(), try SyncDevice(), try SyncDevice())
        defer { [a, b, c, d].forEach { $0.stop() } }
        try server.enroll(a, b)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "one").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        let remove = try a.run("sync", "remove", try DeviceTrustTests.deviceID(of: b))
        #expect(remove.status == 0, "\(remove.error)")
        let rolled = try Self.manifest(server).version

        let join = try c.start("sync", "join", "--server", server.conninfo(), "--timeout", "300")
        let code = try #require(join.line(startingWith: "code: "), "join printed no code: \(join.wait().error)")
        #expect(try a.run("sync", "approve", code).status == 0)
        let joined = join.wait()
        #expect(joined.status == 0, "\(joined.error)")
        #expect(try c.password("me", "mail") == "one")
        #expect(!(try c.run("sync", "status").output.contains("last error")))

        let secret = try #require(remove.output.split(separator: "\n").last.map(String.init))
        let file = d.home + "/new-secret"
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: file))
        #expect(try d.run("sync", "join", "--server", server.conninfo(), "--recovery-secret-file", file).status == 0)
        let first = try d.run("sync", "now")
        #expect(first.status == 0, "\(first.error)")
        #expect(try d.password("me", "mail") == "one")
        // Neither join wrote records, so the manifest is still the roll's.
        #expect(try Self.manifest(server).version == rolled)
    }
}
