import Foundation
import Testing

@testable import KeychainSync

/// keychaind syncing in the background: on a local change, on the server's notification, and
/// again after the server was unreachable, with no `security sync now`.
@Suite("Sync in the background", .serialized)
struct BackgroundSyncTests {
    /// Whether `condition` holds within `limit` seconds, checked every 200 ms (the limit is
    /// generous: the test asserts what happens, not how fast).
    static func eventually(within limit: TimeInterval = 120, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if try condition() { return true }
            usleep(200_000)
        }
        return try condition()
    }

    @Test("an item added, changed and deleted on one device reaches another, both served by keychaind, without sync now")
    func changesReachTheOtherDaemon() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(background: true), try SyncDevice(background: true))
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)

        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "first").status == 0)
        #expect(try Self.eventually { try b.password("me", "mail") == "first" })
        #expect(try b.run("add-generic-password", "-U", "-S", "-a", "me", "-s", "mail", "-w", "second").status == 0)
        #expect(try Self.eventually { try a.password("me", "mail") == "second" })
        #expect(try a.run("delete-generic-password", "-a", "me", "-s", "mail").status == 0)
        #expect(try Self.eventually { try b.password("me", "mail") == nil })
        #expect(try Self.eventually { try b.run("sync", "status").output.contains("pending changes: 0\n") })
    }

    @Test("with the server down a write succeeds locally and shows as pending with the last error; the daemon catches up when the server returns")
    func catchesUpAfterTheServerReturns() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(background: true), try SyncDevice(background: true))
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "before", "-w", "one").status == 0)
        #expect(try Self.eventually { try b.password("me", "before") == "one" })

        try server.postgres.pause()
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "offline", "-w", "queued").status == 0)
        #expect(try a.password("me", "offline") == "queued")
        #expect(try Self.eventually {
            let status = try a.run("sync", "status").output
            return status.contains("pending changes: 1\n") && status.contains("last error: cannot connect to the sync server")
        })

        try server.postgres.resume()
        #expect(try Self.eventually { try b.password("me", "offline") == "queued" })
        #expect(try Self.eventually {
            let status = try a.run("sync", "status").output
            return status.contains("pending changes: 0\n") && !status.contains("last error")
        })
    }

    @Test("a device removed from the account stops syncing in the background with the reason in its status; the remaining daemons take the new keys and go on")
    func removedDeviceStopsInTheBackground() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b, c) = (try SyncDevice(background: true), try SyncDevice(background: true), try SyncDevice(background: true))
        defer { [a, b, c].forEach { $0.stop() } }
        try server.enroll(a, b, c)
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "before", "-w", "one").status == 0)
        #expect(try Self.eventually { try b.password("me", "before") == "one" && c.password("me", "before") == "one" })

        let remove = try a.run("sync", "remove", try DeviceTrustTests.deviceID(of: b))
        #expect(remove.status == 0, "\(remove.error)")
        #expect(try a.run("add-generic-password", "-S", "-a", "me", "-s", "after", "-w", "two").status == 0)
        // C's worker takes the share, verifies the rolled manifest and applies what A wrote after.
        #expect(try Self.eventually { try c.password("me", "after") == "two" })
        #expect(try c.run("add-generic-password", "-S", "-a", "me", "-s", "from-c", "-w", "three").status == 0)
        #expect(try Self.eventually { try a.password("me", "from-c") == "three" })
        #expect(try Self.eventually { !(try c.run("sync", "status").output.contains("last error")) })
        // B's worker stops at the trust check: the reason is in its status, its daemon still
        // serves it, and nothing written after the removal reaches it.
        #expect(try Self.eventually {
            let status = try b.run("sync", "status").output
            return status.contains("last error: the account's keys rolled (epoch 2)") && status.contains("it was removed from the account")
        })
        #expect(try b.password("me", "before") == "one")
        #expect(try b.password("me", "after") == nil)
        #expect(try b.run("add-generic-password", "-S", "-a", "me", "-s", "local-on-b", "-w", "four").status == 0)
        #expect(try b.password("me", "local-on-b") == "four")
    }
}
