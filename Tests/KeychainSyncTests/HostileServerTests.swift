import Foundation
import Testing

@testable import KeychainSync

/// A server that changes what it stores: each change is refused by the device and nothing in its
/// keychain changes.
@Suite("Sync against a hostile server", .serialized)
struct HostileServerTests {
    /// Two enrolled devices sharing `items` (service → password), synced on both.
    static func sharedSetup(_ items: [(String, String)]) throws -> (SyncServer, SyncDevice, SyncDevice) {
        let server = try SyncServer()
        let (a, b) = (try SyncDevice(), try SyncDevice())
        try server.enroll(a, b)
        for (service, password) in items {
            #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", service, "-w", password).status == 0)
        }
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        return (server, a, b)
    }

    @Test("a ciphertext changed by the server is refused and the item stays as it was")
    func changedCiphertextIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "original")])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try a.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "changed").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        // Flip one bit of the last byte (inside the sealed item).
        try server.admin.execute(
            """
            UPDATE keychain_sync.record SET ciphertext = set_byte(ciphertext, length(ciphertext) - 1,
                get_byte(ciphertext, length(ciphertext) - 1) # 1)
            """)
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("refused: record"))
        #expect(try b.password("me", "mail") == "original")
    }

    @Test("a record copied onto another item's record is refused")
    func recordMovedBetweenItemsIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("kept", "untouched")])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "first", "-w", "one").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "second", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        // The two new records, both at generation 1, not yet fetched by B: the server puts the
        // first one's ciphertext in the second one's row.
        let rows = try server.admin.execute(
            "SELECT record_id FROM keychain_sync.record ORDER BY change_seq DESC LIMIT 2")
        #expect(rows.count == 2)
        let (source, target) = (try rows.uuid(0, "record_id"), try rows.uuid(1, "record_id"))
        try server.admin.execute(
            """
            UPDATE keychain_sync.record t SET ciphertext = s.ciphertext, parent_key_id = s.parent_key_id
            FROM keychain_sync.record s WHERE s.record_id = $1 AND t.record_id = $2
            """,
            [.uuid(source), .uuid(target)])
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("does not authenticate"))
        #expect(try b.password("me", "kept") == "untouched")
        #expect(try b.password("me", "first") == nil)
        #expect(try b.password("me", "second") == nil)
    }

    @Test("an older generation replayed by the server is refused")
    func replayedGenerationIsRefused() throws {
        let (server, a, b) = try Self.sharedSetup([("mail", "version-1")])
        defer { server.stop(); a.stop(); b.stop() }
        try server.admin.execute("CREATE TABLE saved AS SELECT * FROM keychain_sync.record")
        #expect(try a.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "version-2").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.password("me", "mail") == "version-2")
        try server.admin.execute(
            """
            UPDATE keychain_sync.record r SET ciphertext = s.ciphertext, generation = s.generation,
                change_seq = nextval('keychain_sync.change_seq')
            FROM saved s WHERE s.record_id = r.record_id
            """)
        let now = try b.run("sync", "now")
        #expect(now.status == 1)
        #expect(now.error.contains("older than"))
        #expect(try b.password("me", "mail") == "version-2")
    }

    @Test("the server's tables hold no attribute value, no secret and no exact length")
    func serverSeesNoPlaintext() throws {
        let short = "x", long = "a-much-longer-secret-value-of-forty-chars"
        let (server, a, b) = try Self.sharedSetup([("svc-alpha-distinct", short), ("svc-bravo-distinct", long)])
        defer { server.stop(); a.stop(); b.stop() }
        #expect(try b.password("me", "svc-bravo-distinct") == long)
        var dump = ""
        for table in ["account", "device", "device_list", "key_share", "sync_key", "record", "manifest"] {
            let rows = try server.admin.execute("SELECT row_to_json(t)::text AS j FROM keychain_sync.\(table) t")
            for row in 0..<rows.count { dump += try rows.string(row, "j") + "\n" }
        }
        #expect(dump.contains("\\\\x"))  // bytea values are in the dump, as hex
        let hex = { (text: String) in text.utf8.map { String(format: "%02x", $0) }.joined() }
        for value in ["svc-alpha-distinct", "svc-bravo-distinct", long, "distinct"] {
            #expect(!dump.contains(value), "the server holds \(value)")
            #expect(!dump.contains(hex(value)), "the server holds \(value) as bytes")
        }
        let lengths = try server.admin.execute("SELECT DISTINCT length(ciphertext) AS n FROM keychain_sync.record")
        #expect(lengths.count == 1, "two items of different lengths have records of different lengths")
    }
}
