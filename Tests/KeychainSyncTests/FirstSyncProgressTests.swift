import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// A first sync of many items, in-process: applied in batches, with progress after each.
@Suite("Sync first sync progress", .serialized)
struct FirstSyncProgressTests {
    @Test("a first sync of 2 500 items reports its progress batch by batch and brings every item")
    func firstSyncReportsProgress() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kssync-progress-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func keychain(_ name: String) throws -> any KeychainHandle {
            EmbeddedKeychain(try Keychain.create(path: "\(directory)/\(name).keychain-db", passcode: nil), context: AccessContext(accessGroups: ["test", "*"]))
        }
        let count = 2 * SyncEngine.additionBatch + SyncEngine.additionBatch / 2
        let first = try keychain("first")
        let secret = try SyncEngine.enable(first, conninfo: server.conninfo())
        let requests = (0..<count).map { index -> ItemRequest in
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes[.service] = .string("progress")
            request.attributes[.account] = .string("account \(index)")
            request.synchronizable = .only(true)
            request.secret = Data("secret \(index)".utf8)
            return request
        }
        _ = try (first as? EmbeddedKeychain)?.keychain.add(contentsOf: requests, context: AccessContext(accessGroups: ["test"]))
        #expect(try SyncEngine.syncNow(first).uploaded == count)

        let second = try keychain("second")
        try SyncEngine.join(second, conninfo: server.conninfo(), recoverySecret: secret)
        var reports: [[Int]] = []
        let report = try SyncEngine.syncNow(second) { applied, total in reports.append([applied, total]) }
        #expect(report.applied == count)
        #expect(reports == [[SyncEngine.additionBatch, count], [2 * SyncEngine.additionBatch, count], [count, count]])
        var query = ItemRequest(itemClass: .genericPassword)
        query.attributes[.service] = .string("progress")
        query.synchronizable = .only(true)
        query.matchLimit = .all
        #expect(try second.search(query).count == count)
    }
}
