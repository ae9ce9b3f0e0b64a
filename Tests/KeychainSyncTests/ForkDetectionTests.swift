import Foundation
import Testing

@testable import KeychainSync

/// A server that keeps a device on an older but consistent state of the account, or shows two
/// devices branches of their own (a fork): found out once a checkpoint signed by a device on the
/// other branch reaches a device; the device refuses the exchange and its keychain is unchanged.
@Suite("Fork detection against a hostile server", .serialized)
struct ForkDetectionTests {
    /// The tables that make up what a device sees of the account's items.
    static let stateTables = ["record", "manifest", "checkpoint"]

    /// Saves the server's current `tables` under `name` (superuser tables outside the schema).
    static func save(_ server: SyncServer, as name: String, tables: [String] = stateTables) throws {
        for table in tables {
            try server.admin.execute("CREATE TABLE \(name)_\(table) AS SELECT * FROM keychain_sync.\(table)")
        }
    }

    /// Puts back the `tables` saved under `name`.
    static func restore(_ server: SyncServer, from name: String, tables: [String] = stateTables) throws {
        for table in tables {
            try server.admin.execute("DELETE FROM keychain_sync.\(table)")
            try server.admin.execute("INSERT INTO keychain_sync.\(table) SELECT * FROM \(name)_\(table)")
        }
    }

    @Test("a device kept on an older state finds the fork in the other device's signed checkpoint; nothing is applied")
    func deviceKeptBehindFindsFork() throws {
        let (server, a, b) = try HostileServerTests.sharedSetup([("first", "one")])
        defer { server.stop(); a.stop(); b.stop() }
        let aID = try DeviceTrustTests.deviceID(of: a)
        try Self.save(server, as: "before", tables: ["record", "manifest"])
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "second", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)

        // The server shows B the account as it was before A's upload (records and manifest, a
        // consistent older state), but not A's checkpoint of the newer manifest.
        try Self.restore(server, from: "before", tables: ["record", "manifest"])
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains(
            "the server is keeping this device on a fork of the account: device \(aID) signed that it has seen version 3 of the account's manifest; "
                + "the server shows this device version 2"))
        #expect(try b.password("me", "first") == "one")
        #expect(try b.password("me", "second") == nil)
        #expect(try b.run("sync", "status").output.contains("last error: refused: the server is keeping this device on a fork"))
    }

    @Test("two branches that each wrote a version of the manifest: unseen while the server withholds the other branch's checkpoints, found by each device once it shows one")
    func branchesFoundByTheirCheckpoints() throws {
        let (server, a, b) = try HostileServerTests.sharedSetup([("first", "one")])
        defer { server.stop(); a.stop(); b.stop() }
        let (aID, bID) = (try DeviceTrustTests.deviceID(of: a), try DeviceTrustTests.deviceID(of: b))
        try Self.save(server, as: "common")
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "from-a", "-w", "a").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        try Self.save(server, as: "branch_a")

        // B gets the state from before A's upload, checkpoints included: nothing shows the fork
        // (what a server can hide as long as no checkpoint from the other branch reaches B), and
        // B writes version 3 of its own.
        try Self.restore(server, from: "common")
        #expect(try b.run("add-generic-password", "-S", "-a", "me", "-s", "from-b", "-w", "b").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        try Self.save(server, as: "branch_b")

        // A gets its own branch with B's checkpoint from B's branch: the same version, another
        // manifest.
        try Self.restore(server, from: "branch_a")
        try server.admin.execute("DELETE FROM keychain_sync.checkpoint WHERE device_id = $1::uuid", [.text(bID)])
        try server.admin.execute("INSERT INTO keychain_sync.checkpoint SELECT * FROM branch_b_checkpoint WHERE device_id = $1::uuid", [.text(bID)])
        let onA = try a.run("sync", "now")
        #expect(onA.status == 1)
        #expect(onA.error.contains("device \(bID) saw another version 3 of the account's manifest than this device did"))
        #expect(try a.password("me", "from-a") == "a")
        #expect(try a.password("me", "from-b") == nil)

        // And B its branch with A's checkpoint from A's branch.
        try Self.restore(server, from: "branch_b")
        try server.admin.execute("DELETE FROM keychain_sync.checkpoint WHERE device_id = $1::uuid", [.text(aID)])
        try server.admin.execute("INSERT INTO keychain_sync.checkpoint SELECT * FROM branch_a_checkpoint WHERE device_id = $1::uuid", [.text(aID)])
        let onB = try b.run("sync", "now")
        #expect(onB.status == 1)
        #expect(onB.error.contains("device \(aID) saw another version 3 of the account's manifest than this device did"))
        #expect(try b.password("me", "from-b") == "b")
        #expect(try b.password("me", "from-a") == nil)
    }

    @Test("a checkpoint replayed, changed or withheld by the server is refused; the genuine one is accepted again")
    func checkpointReplayedChangedOrWithheldIsRefused() throws {
        let (server, a, b) = try HostileServerTests.sharedSetup([("first", "one")])
        defer { server.stop(); a.stop(); b.stop() }
        let aID = try DeviceTrustTests.deviceID(of: a)
        try Self.save(server, as: "old", tables: ["checkpoint"])
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "second", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.password("me", "second") == "two")
        try Self.save(server, as: "current", tables: ["checkpoint"])

        // A's checkpoint of version 2 again, after B saw its version 3.
        try Self.restore(server, from: "old", tables: ["checkpoint"])
        let replayed = try b.run("sync", "now")
        #expect(replayed.status == 1)
        #expect(replayed.error.contains("device \(aID)'s checkpoint went back from version 3 to 2"))

        // A's checkpoint with one bit of its fingerprint changed.
        try Self.restore(server, from: "current", tables: ["checkpoint"])
        try server.admin.execute(
            "UPDATE keychain_sync.checkpoint SET fingerprint = set_byte(fingerprint, 0, get_byte(fingerprint, 0) # 1) WHERE device_id = $1::uuid",
            [.text(aID)])
        let changed = try b.run("sync", "now")
        #expect(changed.status == 1)
        #expect(changed.error.contains("the checkpoint of device \(aID) is not signed by that device"))

        // A's checkpoint gone.
        try server.admin.execute("DELETE FROM keychain_sync.checkpoint WHERE device_id = $1::uuid", [.text(aID)])
        let withheld = try b.run("sync", "now")
        #expect(withheld.status == 1)
        #expect(withheld.error.contains("the server withheld the checkpoint of device \(aID)"))
        #expect(try b.password("me", "second") == "two")

        try Self.restore(server, from: "current", tables: ["checkpoint"])
        #expect(try b.run("sync", "now").status == 0)
    }
}
