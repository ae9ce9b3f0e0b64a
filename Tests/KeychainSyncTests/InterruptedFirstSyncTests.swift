import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// A first sync cut short after some of its batches were added: the keychain keeps what was
/// committed, the sync state records only that, and the next exchange brings the rest without
/// deleting anything from the server.
@Suite("Sync interrupted first sync", .serialized)
struct InterruptedFirstSyncTests {
    static let service = "interrupted"

    /// A keychain in this process, in `directory`.
    static func keychain(_ directory: String, _ name: String) throws -> EmbeddedKeychain {
        EmbeddedKeychain(
            try Keychain.create(path: "\(directory)/\(name).keychain-db", passcode: nil), context: AccessContext(accessGroups: ["test", "*"]))
    }

    /// The synchronizable item `index` (a query when `secret` is nil).
    static func item(_ index: Int, secret: String?) -> ItemRequest {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes[.service] = .string(service)
        request.attributes[.account] = .string("account \(index)")
        request.attributes[.accessGroup] = .string("test")
        request.synchronizable = .only(true)
        request.secret = secret.map { Data($0.utf8) }
        return request
    }

    /// The secrets of the keychain's items of the service, by account.
    static func secrets(in keychain: any KeychainHandle) throws -> [String: String] {
        var query = ItemRequest(itemClass: .genericPassword)
        query.attributes[.service] = .string(service)
        query.synchronizable = .only(true)
        query.matchLimit = .all
        query.returns = [.attributes, .data]
        var found: [String: String] = [:]
        for result in try keychain.search(query) {
            guard case .string(let account)? = result.attributes?[.account] else { continue }
            found[account] = String(decoding: result.data ?? Data(), as: UTF8.self)
        }
        return found
    }

    @Test("a first sync whose second batch fails (an item of the same key made meanwhile) keeps the first, and the next exchange brings the rest and deletes nothing")
    func failedBatchThenResumed() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kssync-interrupted-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let count = 2 * SyncEngine.additionBatch + SyncEngine.additionBatch / 2
        let first = try Self.keychain(directory, "first")
        let secret = try SyncEngine.enable(first, conninfo: server.conninfo())
        try first.keychain.add(contentsOf: (0..<count).map { Self.item($0, secret: "secret \($0)") }, context: first.context)
        #expect(try SyncEngine.syncNow(first).uploaded == count)
        let expected = Dictionary(uniqueKeysWithValues: (0..<count).map { ("account \($0)", "secret \($0)") })

        let second = try Self.keychain(directory, "second")
        try SyncEngine.join(second, conninfo: server.conninfo(), recoverySecret: secret)
        // After the first batch, an item with the key of a record not added yet is made on this
        // device: the next batch's add fails on it, and the exchange stops there.
        var madeMeanwhile: Int?
        #expect(throws: SyncError.self) {
            try SyncEngine.syncNow(second) { _, _ in
                guard madeMeanwhile == nil, let present = try? Self.secrets(in: second) else { return }
                madeMeanwhile = (0..<count).first { present["account \($0)"] == nil }
                if let index = madeMeanwhile { _ = try? second.add(Self.item(index, secret: "made here meanwhile")) }
            }
        }
        let made = try #require(madeMeanwhile)
        let cutShort = try Self.secrets(in: second)
        #expect(cutShort.count >= SyncEngine.additionBatch && cutShort.count < count)
        #expect(cutShort["account \(made)"] == "made here meanwhile")

        // The next exchange brings every other record (the server's version wins over the item
        // made meanwhile) and uploads nothing: the items of the first batch are not taken for
        // local changes, nor the records not yet added for local deletions.
        let resumed = try SyncEngine.syncNow(second)
        #expect(resumed.uploaded == 0)
        #expect(resumed.uploadedDeletions == 0)
        #expect(try Self.secrets(in: second) == expected)
        // The items added before the failure (the first batch, and the failing batch's items
        // added one by one before the duplicate) were not written again: the rows past their
        // first generation are the item made meanwhile (the record won) and the sync state's.
        #expect(try second.keychain.itemVersions(of: [.genericPassword]).versions.filter { $0.generation != 1 }.count == 2)

        // Nothing was deleted or changed on the first device's side.
        let back = try SyncEngine.syncNow(first)
        #expect(back.appliedDeletions == 0)
        #expect(back.applied == 0)
        #expect(try Self.secrets(in: first) == expected)
    }
}
