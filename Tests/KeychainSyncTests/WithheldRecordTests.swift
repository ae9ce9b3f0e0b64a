import Foundation
import Testing

@testable import KeychainSync

/// A server that withholds records: the account's signed manifest does not match what the change
/// feed gives, the device refuses the download and nothing in its keychain changes.
@Suite("Sync against a server that withholds records", .serialized)
struct WithheldRecordTests {
    @Test("a record deleted from the server's table (dropped from a batch) is detected and nothing of the batch is applied")
    func droppedRecordIsDetected() throws {
        let (server, a, b) = try HostileServerTests.sharedSetup([("kept", "untouched")])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "first", "-w", "one").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "second", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        // The server drops one of the two records of A's batch.
        let dropped = try server.admin.execute(
            "DELETE FROM keychain_sync.record WHERE change_seq = (SELECT max(change_seq) FROM keychain_sync.record)")
        #expect(dropped.affected == 1)
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("refused: the server's records do not match the account's signed manifest"))
        #expect(try b.password("me", "kept") == "untouched")
        #expect(try b.password("me", "first") == nil)
        #expect(try b.password("me", "second") == nil)
        let status = try b.run("sync", "status")
        #expect(status.output.contains("last error: refused: the server's records do not match"))
    }

    @Test("a deletion hidden from the change feed is detected and the item stays")
    func hiddenDeletionIsDetected() throws {
        let (server, a, b) = try HostileServerTests.sharedSetup([("mail", "secret"), ("other", "kept")])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try a.run("delete-generic-password", "-a", "me", "-s", "mail").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        // The server keeps the tombstone out of B's feed (its sequence put back below B's).
        try server.admin.execute("UPDATE keychain_sync.record SET change_seq = 1 WHERE deleted")
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("a record was withheld, hidden or added"))
        #expect(try b.password("me", "mail") == "secret")
        #expect(try b.password("me", "other") == "kept")
    }

    @Test("a manifest removed, changed or rolled back by the server is refused")
    func forgedManifestIsRefused() throws {
        let (server, a, b) = try HostileServerTests.sharedSetup([("mail", "secret")])
        defer { server.stop(); a.stop(); b.stop() }
        try server.admin.execute("CREATE TABLE saved_manifest AS SELECT * FROM keychain_sync.manifest")
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "later", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.password("me", "later") == "two")

        // Rolled back to the version before (records and manifest as they were).
        try server.admin.execute(
            """
            UPDATE keychain_sync.manifest m SET version = s.version, record_count = s.record_count, digest = s.digest,
                signer = s.signer, code = s.code FROM saved_manifest s
            """)
        try server.admin.execute("DELETE FROM keychain_sync.record WHERE change_seq = (SELECT max(change_seq) FROM keychain_sync.record)")
        let rolledBack = try b.run("sync", "now")
        #expect(rolledBack.status == 1)
        #expect(rolledBack.error.contains("manifest went back"))

        // Changed (one bit of its code).
        try server.admin.execute("UPDATE keychain_sync.manifest SET code = set_byte(code, 0, get_byte(code, 0) # 1)")
        #expect(try b.run("sync", "now").error.contains("manifest does not authenticate"))

        // Removed.
        try server.admin.execute("DELETE FROM keychain_sync.manifest")
        #expect(try b.run("sync", "now").error.contains("withheld the account's manifest"))
        #expect(try b.password("me", "mail") == "secret")
        #expect(try b.password("me", "later") == "two")
    }
}
