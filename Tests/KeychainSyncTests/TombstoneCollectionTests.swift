import Foundation
import Testing

@testable import KeychainSync

/// Tombstones collected after their lifetime, and a device whose last sync is older than the
/// collection fetching everything again.
@Suite("Sync tombstone collection", .serialized)
struct TombstoneCollectionTests {
    @Test("a tombstone past its lifetime is collected and a device offline since then refetches everything and drops the deleted item")
    func collectedTombstoneForcesFullRefetch() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, c) = (try SyncDevice(), try SyncDevice())
        defer { [a, c].forEach { $0.stop() } }
        try server.enroll(a, c)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "doomed", "-w", "one").status == 0)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "kept", "-w", "two").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try c.run("sync", "now").status == 0)
        #expect(try c.password("me", "doomed") == "one")

        // C goes offline; A deletes the item, and the deletion stays as a tombstone.
        #expect(try a.run("delete-generic-password", "-a", "me", "-s", "doomed").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        let tombstones = "SELECT count(*) AS n FROM keychain_sync.record WHERE deleted"
        #expect(try server.admin.execute(tombstones).integer(0, "n") == 1)
        // A young tombstone is not collected.
        #expect(try a.run("sync", "now").status == 0)
        #expect(try server.admin.execute(tombstones).integer(0, "n") == 1)
        #expect(try server.admin.execute("SELECT gc_horizon FROM keychain_sync.account").integer(0, "gc_horizon") == 0)

        // Its lifetime passes (the row is aged, not the clock): the next exchange collects it and
        // records the horizon.
        try server.admin.execute("UPDATE keychain_sync.record SET changed_at = now() - interval '31 days' WHERE deleted")
        #expect(try a.run("sync", "now").status == 0)
        #expect(try server.admin.execute(tombstones).integer(0, "n") == 0)
        let horizon = try server.admin.execute("SELECT gc_horizon FROM keychain_sync.account").integer(0, "gc_horizon")
        #expect(horizon > 0)

        // C comes back with a change token older than the horizon: it fetches every record again
        // and the item deleted meanwhile disappears.
        let back = try c.run("sync", "now")
        #expect(back.status == 0, "\(back.error)")
        #expect(back.output.contains("fetched every record again"))
        #expect(back.output.contains("applied 0 changes and 1 deletions"))
        #expect(try c.password("me", "doomed") == nil)
        #expect(try c.password("me", "kept") == "two")
        // Once caught up, it goes back to the change feed.
        let next = try c.run("sync", "now")
        #expect(next.status == 0)
        #expect(!next.output.contains("fetched every record again"))
        #expect(try c.run("sync", "status").output.contains("pending changes: 0\n"))
    }
}
