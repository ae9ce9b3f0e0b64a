import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// A background worker (keychaind's `BackgroundSync`) of a device removed from the account.
@Suite("Sync worker of a removed device", .serialized)
struct RemovedDeviceWorkerTests {
    @Test("the background worker of a device removed from the account stops, with the reason in its last error, instead of retrying")
    func removedDeviceWorkerStops() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kssync-removed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func keychain(_ name: String) throws -> EmbeddedKeychain {
            EmbeddedKeychain(
                try Keychain.create(path: "\(directory)/\(name).keychain-db", passcode: nil), context: AccessContext(accessGroups: ["test", "*"]))
        }
        let (a, b) = (try keychain("a"), try keychain("b"))
        let secret = try SyncEngine.enable(a, conninfo: server.conninfo())
        try SyncEngine.join(b, conninfo: server.conninfo(), recoverySecret: secret)
        _ = try SyncEngine.syncNow(b)

        var timing = BackgroundSync.Timing()
        timing.firstRetry = 0.2
        timing.maximumRetry = 0.4
        let logged = LogLines()
        let background = BackgroundSync(timing: timing, log: { logged.append($0) }) { path in
            guard path == b.path else { throw SyncError(.keychain, "no keychain at \(path)") }
            return b
        }
        background.keychainOpened(path: b.path)
        #expect(background.isActive)

        let removed = try #require(try SyncState.load(from: b)).deviceID.uuidString.lowercased()
        _ = try SyncEngine.remove(a, device: removed)
        background.keychainChanged(path: b.path, syncState: false)
        #expect(try BackgroundSyncTests.eventually(within: 60) { !background.isActive })
        let state = try #require(try SyncState.load(from: b))
        #expect(state.lastError?.contains("it was removed from the account") == true)
        #expect(logged.lines.contains { $0.contains("stopped") && $0.contains("removed from the account") })
    }
}

/// Log lines collected from another thread.
private final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []

    func append(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        collected.append(line)
    }

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }
}
