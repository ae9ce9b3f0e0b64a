import Foundation
import Testing

@testable import KeychainSync

/// Joining by a trusted device's approval, and removing a device (which rolls the keys), with the
/// `security` binary against a real PostgreSQL server.
@Suite("Device trust", .serialized)
struct DeviceTrustTests {
    /// The id `sync status` shows for the device itself.
    static func deviceID(of device: SyncDevice) throws -> String {
        let status = try device.run("sync", "status")
        guard let line = status.output.split(separator: "\n").first(where: { $0.hasPrefix("this device: ") }) else {
            throw PostgresServer.Failure(what: "sync status shows no device id: \(status.error)")
        }
        return String(line.dropFirst("this device: ".count))
    }

    /// `count(*)` of a query run by the superuser.
    static func count(_ server: SyncServer, _ sql: String) throws -> Int64 {
        try server.admin.execute("SELECT count(*) AS n FROM \(sql)").integer(0, "n")
    }

    @Test("a device approved with the code it shows joins, receives the items, and every device trusts it")
    func approvedDeviceJoins() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b, c) = (try SyncDevice(), try SyncDevice(), try SyncDevice())
        defer { [a, b, c].forEach { $0.stop() } }
        try server.enroll(a, c)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "shared-secret").status == 0)
        #expect(try a.run("sync", "now").status == 0)

        let join = try b.start("sync", "join", "--server", server.conninfo(), "--timeout", "300")
        let code = try #require(join.line(startingWith: "code: "), "join printed no code: \(join.wait().error)")
        #expect(code.count == 9 && code.filter(\.isNumber).count == 8)
        let pending = try a.run("sync", "status")
        #expect(pending.output.contains("pending approval"))
        #expect(pending.output.contains("devices: 2\n"))

        let approve = try a.run("sync", "approve", code)
        #expect(approve.status == 0, "\(approve.error)")
        let joined = join.wait()
        #expect(joined.status == 0, "\(joined.error)")
        #expect(try b.password("me", "mail") == "shared-secret")
        let bID = try Self.deviceID(of: b)
        #expect(approve.output == "approved device \(bID)\n")

        #expect(try b.run("add-generic-password", "-S", "-a", "me", "-s", "from-b", "-w", "b-secret").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        for device in [a, c] {
            #expect(try device.run("sync", "now").status == 0)
            #expect(try device.password("me", "from-b") == "b-secret")
            let status = try device.run("sync", "status")
            #expect(status.output.contains("devices: 3\n"))
            #expect(status.output.contains("\(bID) trusted\n"))
            #expect(!status.output.contains("NOT TRUSTED") && !status.output.contains("pending approval"))
        }
        #expect(try Self.count(server, "keychain_sync.join_request") == 0)
    }

    @Test("a wrong code approves nothing, and the joining device gets nothing")
    func wrongCodeApprovesNothing() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "bank", "-w", "pin-1234").status == 0)
        #expect(try a.run("sync", "now").status == 0)

        let join = try b.start("sync", "join", "--server", server.conninfo(), "--timeout", "3")
        let code = try #require(join.line(startingWith: "code: "), "join printed no code: \(join.wait().error)")
        // The same code with its last digit changed.
        let last = code.last!.wholeNumberValue!
        let wrong = String(code.dropLast()) + String((last + 1) % 10)
        let approve = try a.run("sync", "approve", wrong)
        #expect(approve.status == 1)
        #expect(approve.error == "security: sync approve: no pending join request matches this code: nothing was approved\n")
        let malformed = try a.run("sync", "approve", "12-34")
        #expect(malformed.status == 1)
        #expect(malformed.error.contains("a join code is 8 digits"))
        #expect(try Self.count(server, "keychain_sync.key_share") == 0)
        #expect(try Self.count(server, "keychain_sync.device") == 1)

        let joined = join.wait()
        #expect(joined.status == 1)
        #expect(joined.error.contains("no trusted device approved this device within 3 seconds"))
        #expect(try b.run("sync", "now").error.contains("does not sync"))
        #expect(try b.password("me", "bank") == nil)
        // The code is spent with its request: approving it now finds nothing either.
        #expect(try a.run("sync", "approve", code).status == 1)
        #expect(try Self.count(server, "keychain_sync.device") == 1)
    }

    @Test("a joining device nobody approves gets nothing, and its request is withdrawn")
    func unapprovedDeviceGetsNothing() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "bank", "-w", "pin-1234").status == 0)
        #expect(try a.run("sync", "now").status == 0)

        let join = try b.run("sync", "join", "--server", server.conninfo(), "--timeout", "1")
        #expect(join.status == 1)
        #expect(join.output.contains("code: "))
        #expect(join.error.contains("nothing was joined"))
        #expect(try b.password("me", "bank") == nil)
        #expect(try b.run("sync", "status").error.contains("does not sync"))
        #expect(try Self.count(server, "keychain_sync.join_request") == 0)
        #expect(try Self.count(server, "keychain_sync.key_share") == 0)
        #expect(try Self.count(server, "keychain_sync.device") == 1)
    }

    @Test("a removed device cannot read what is written after; the others converge, a pending edit is sealed again under the new keys")
    func removedDeviceReadsNothingNew() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b, c, d) = (try SyncDevice(), try SyncDevice(), try SyncDevice(), try SyncDevice())
        defer { [a, b, c, d].forEach { $0.stop() } }
        try server.enroll(a, b, c)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "before", "-w", "old-secret").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        for device in [b, c] { #expect(try device.run("sync", "now").status == 0) }
        // C edits the item and has not uploaded the edit when the keys roll.
        #expect(try c.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "before", "-w", "edited-on-c").status == 0)

        let bID = try Self.deviceID(of: b)
        let keysBefore = try server.admin.execute("SELECT key_id, parent_key_id FROM keychain_sync.sync_key")
        let remove = try a.run("sync", "remove", bID)
        #expect(remove.status == 0, "\(remove.error)")
        let newSecret = try #require(remove.output.split(separator: "\n").last.map(String.init))
        #expect(try Self.count(server, "keychain_sync.device") == 2)
        // What B holds opens nothing now: new class keys under a new TLK, shared with A and C only.
        for row in 0..<keysBefore.count {
            #expect(try Self.count(
                server, "keychain_sync.sync_key WHERE key_id = '\(keysBefore.string(row, "key_id"))' OR parent_key_id = '\(keysBefore.string(row, "parent_key_id"))'") == 0)
        }
        #expect(try Self.count(server, "keychain_sync.key_share WHERE receiver = '\(bID)'") == 0)
        #expect(try Self.count(server, "keychain_sync.key_share") == 1)

        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "after", "-w", "new-secret").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        let onC = try c.run("sync", "now")
        #expect(onC.status == 0, "\(onC.error)")
        #expect(try c.password("me", "after") == "new-secret")
        #expect(try c.password("me", "before") == "edited-on-c")
        #expect(try a.run("sync", "now").status == 0)
        #expect(try a.password("me", "before") == "edited-on-c")
        // Every record is under the new class keys.
        #expect(try Self.count(server, "keychain_sync.record r WHERE r.parent_key_id NOT IN (SELECT key_id FROM keychain_sync.sync_key)") == 0)

        let onB = try b.run("sync", "now")
        #expect(onB.status == 1)
        #expect(onB.error.contains("it was removed from the account"))
        #expect(try b.password("me", "after") == nil)
        #expect(try b.password("me", "before") == "old-secret")

        // The old recovery secret opens nothing current; the new one joins and reads everything.
        let oldJoin = try d.run("sync", "join", "--server", server.conninfo(), "--recovery-secret-file", a.home + "/recovery-secret")
        #expect(oldJoin.status == 1)
        let newFile = d.home + "/new-secret"
        try Data((newSecret + "\n").utf8).write(to: URL(fileURLWithPath: newFile))
        #expect(try d.run("sync", "join", "--server", server.conninfo(), "--recovery-secret-file", newFile).status == 0)
        #expect(try d.run("sync", "now").status == 0)
        #expect(try d.password("me", "after") == "new-secret")
        #expect(try d.password("me", "before") == "edited-on-c")
        let status = try a.run("sync", "status")
        #expect(status.output.contains("devices: 3\n"))
        #expect(!status.output.contains(bID))
        #expect(!status.output.contains("NOT TRUSTED"))
    }

    @Test("a record written under the retired keys after a removal is refused by the remaining devices")
    func recordUnderRetiredKeysIsRefused() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "kept", "-w", "untouched").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        // B seals a record under the keys of the time; it reaches the server only after B's removal.
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.run("add-generic-password", "-S", "-a", "me", "-s", "planted", "-w", "from-removed").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        try server.admin.execute("CREATE TABLE planted AS SELECT * FROM keychain_sync.record WHERE generation = 1 AND change_seq = (SELECT max(change_seq) FROM keychain_sync.record)")
        // B deletes it again, and its tombstone is collected: the account's manifest no longer
        // lists it when the keys roll (a roll refuses to sign over a record the server withholds).
        #expect(try b.run("delete-generic-password", "-a", "me", "-s", "planted").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        try server.admin.execute("DELETE FROM keychain_sync.record r USING planted p WHERE r.record_id = p.record_id")
        #expect(try a.run("sync", "remove", try Self.deviceID(of: b)).status == 0)
        try server.admin.execute(
            """
            INSERT INTO keychain_sync.record (owner, record_id, parent_key_id, generation, ciphertext, deleted, change_seq)
            SELECT owner, record_id, parent_key_id, generation, ciphertext, deleted, nextval('keychain_sync.change_seq') FROM planted
            """)
        let now = try a.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("names a parent key this account does not have"))
        #expect(try a.password("me", "planted") == nil)
        #expect(try a.password("me", "kept") == "untouched")
    }

    @Test("remove refuses a malformed id, an unknown device and the device itself, and rolls nothing")
    func removeRefusesBadDevices() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)
        let aID = try Self.deviceID(of: a)
        for (argument, message) in [
            ("not-a-device", "is not a device id"), (UUID().uuidString.lowercased(), "is not a device of this account"),
            (aID, "a device cannot remove itself"),
        ] {
            let run = try a.run("sync", "remove", argument)
            #expect(run.status == 1)
            #expect(run.error.contains(message))
        }
        #expect(try server.admin.execute("SELECT key_epoch FROM keychain_sync.account").integer(0, "key_epoch") == 1)
        #expect(try Self.count(server, "keychain_sync.device") == 2)
    }
}
