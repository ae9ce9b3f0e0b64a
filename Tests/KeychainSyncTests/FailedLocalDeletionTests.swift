import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// A deletion from another device that this device fails to apply (its keychain refuses the
/// delete) stays to be applied: the next exchange deletes the item, and never uploads it as new.
@Suite("Sync: a deletion that fails locally is applied again", .serialized)
struct FailedLocalDeletionTests {
    typealias Device = LocalChangeDetectionTests.Device

    @Test("an item whose deletion failed here is deleted at the next exchange, not uploaded again")
    func failedDeletionIsRetried() throws {
        let first = try Device()
        defer { first.stop() }
        try first.add(0..<3)
        _ = try first.exchange()
        let second = try Device.keychain(first.directory, "second")
        try SyncEngine.join(second, conninfo: first.server.conninfo(), recoverySecret: first.secret)
        #expect(try SyncEngine.syncNow(second).applied == 3)

        #expect(try first.handle.delete(Device.item(1)) == 1)
        #expect(try first.exchange().report.uploadedDeletions == 1)

        let failing = ForwardingKeychain(inner: second, deleteFailure: KeychainError(.io, "the disk failed"))
        #expect(throws: SyncError.self) { try SyncEngine.syncNow(failing) }
        #expect(try !second.search(Device.item(1)).isEmpty)

        let retried = try SyncEngine.syncNow(second)
        #expect(retried.appliedDeletions == 1)
        #expect(retried.uploaded == 0)
        #expect(throws: KeychainError.self) { try second.search(Device.item(1)) }
        // The first device does not get the item back.
        #expect(try first.exchange().report.applied == 0)
        #expect(throws: KeychainError.self) { try first.handle.search(Device.item(1)) }
    }
}
