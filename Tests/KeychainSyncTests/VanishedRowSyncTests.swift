import Foundation
import KeychainCore
import KeychainSQLite
import Testing

@testable import KeychainSync

/// A synchronizable item whose row is removed from the database file behind the keychain's back
/// (by another program, a damaged disk, a lost `-wal` file) is damage, not a deletion: the
/// keychain's ledger still names it, so an exchange does not upload its disappearance, and the
/// other devices keep the item. A deletion made through the keychain still travels.
@Suite("Sync: rows removed behind the keychain's back are not deletions", .serialized)
struct VanishedRowSyncTests {
    typealias Device = LocalChangeDetectionTests.Device

    /// Deletes the row of synchronizable item `index` straight from the database file.
    static func removeRow(of index: Int, in device: Device) throws {
        let keychain = device.handle.keychain
        let versions = try keychain.itemVersions(of: [.genericPassword]).versions
        let opened = try keychain.openSynchronizableItems(versions, context: device.handle.context)
        let row = versions.first { version in
            guard case .item(let result, _) = opened[version.uuid] else { return false }
            return result.attributes?[.account] == .string("account \(index)")
        }
        let rowID = try #require(row?.rowID)
        let connection = try SQLiteConnection(path: "\(device.directory)/first.keychain-db")
        try connection.statement("DELETE FROM items WHERE rowid = ?").bind([.integer(rowID)]).run()
    }

    /// What a device joining the account finds of items 0..<count.
    static func joinedSecrets(_ device: Device, count: Int) throws -> [Int: Data] {
        let other = try Device.keychain(device.directory, "second")
        try SyncEngine.join(other, conninfo: device.server.conninfo(), recoverySecret: device.secret)
        _ = try SyncEngine.syncNow(other)
        var found: [Int: Data] = [:]
        for index in 0..<count {
            var query = Device.item(index)
            query.returns = .data
            if let data = try? other.search(query).first?.data { found[index] = data }
        }
        return found
    }

    @Test("an exchange does not upload a removed row's disappearance; deleting the item through the keychain does")
    func removedRowIsNotADeletion() throws {
        let device = try Device()
        defer { device.stop() }
        try device.add(0..<5)
        #expect(try device.exchange().report.uploaded == 5)
        _ = try device.exchange()

        try Self.removeRow(of: 2, in: device)
        let after = try device.exchange()
        #expect(after.report.uploadedDeletions == 0 && after.report.damagedLocally)
        #expect(try device.exchange().report.uploadedDeletions == 0)
        #expect(try Self.joinedSecrets(device, count: 5).count == 5)

        // The user deletes the damaged item: now it is a deletion, and it travels.
        #expect(try device.handle.delete(Device.item(2)) == 1)
        let deleted = try device.exchange().report
        #expect(deleted.uploadedDeletions == 1 && !deleted.damagedLocally)
    }

    @Test("read through the item calls alone (as through keychaind), a removed row is not uploaded as a deletion")
    func removedRowThroughItemCalls() throws {
        let device = try Device()
        defer { device.stop() }
        try device.add(0..<5)
        let remote = ForwardingKeychain(inner: device.handle)
        #expect(try SyncEngine.syncNow(remote).uploaded == 5)

        try Self.removeRow(of: 3, in: device)
        let after = try SyncEngine.syncNow(remote)
        #expect(after.uploadedDeletions == 0 && after.damagedLocally)
        #expect(try SyncEngine.syncNow(remote).uploadedDeletions == 0)
        #expect(try Self.joinedSecrets(device, count: 5).count == 5)

        #expect(try device.handle.delete(Device.item(3)) == 1)
        #expect(try SyncEngine.syncNow(remote).uploadedDeletions == 1)
    }

    @Test("without the rows' last versions (a state written before they were kept), a removed row is not uploaded as a deletion")
    func removedRowWithoutKnownVersions() throws {
        let device = try Device()
        defer { device.stop() }
        try device.add(0..<5)
        _ = try device.exchange()
        var state = try #require(try SyncState.load(from: device.handle))
        state.localVersions = nil
        try state.save(to: device.handle)

        try Self.removeRow(of: 1, in: device)
        #expect(try device.exchange().report.uploadedDeletions == 0)
        #expect(try device.exchange().report.uploadedDeletions == 0)
        #expect(try Self.joinedSecrets(device, count: 5).count == 5)

        #expect(try device.handle.delete(Device.item(1)) == 1)
        #expect(try device.exchange().report.uploadedDeletions == 1)
    }

    @Test("security sync now says that synchronizable items are missing, and uploads no deletion for them")
    func commandReportsTheDamage() throws {
        let server = try SyncServer()
        let device = try SyncDevice()
        defer { device.stop() }
        try server.enroll(device)
        #expect(try device.run("add-generic-password", "-S", "-a", "me", "-s", "kept", "-w", "one").status == 0)
        #expect(try device.run("add-generic-password", "-S", "-a", "me", "-s", "removed", "-w", "two").status == 0)
        let connection = try SQLiteConnection(path: device.home + "/swift-keychain/login.keychain-db")
        // The row just added (row numbers only grow; an update keeps its row).
        let removed = try #require(try connection.statement("SELECT max(rowid) FROM items").rows { $0.int64(0) }.first)
        #expect(try device.run("sync", "now").status == 0)
        try connection.statement("DELETE FROM items WHERE rowid = ?").bind([.integer(removed)]).run()

        let now = try device.run("sync", "now")
        #expect(now.status == 0)
        #expect(now.output.contains("uploaded 0 changes and 0 deletions"))
        #expect(now.output.contains("synchronizable items are missing from the keychain's database"))
    }
}
