import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// How an exchange finds the keychain's local changes: from the rows' versions, opening only the
/// rows written since the last exchange (the query planner's count of rows examined shows which
/// rows the keychain opened).
@Suite("Sync local change detection", .serialized)
struct LocalChangeDetectionTests {
    /// A device syncing in this process, on a server of its own.
    struct Device {
        let server: SyncServer
        let directory: String
        let handle: EmbeddedKeychain
        let secret: String

        init() throws {
            server = try SyncServer()
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("kssync-local-\(UUID().uuidString)").path
            handle = try Self.keychain(directory, "first")
            secret = try SyncEngine.enable(handle, conninfo: server.conninfo())
        }

        static func keychain(_ directory: String, _ name: String) throws -> EmbeddedKeychain {
            EmbeddedKeychain(
                try Keychain.create(path: "\(directory)/\(name).keychain-db", passcode: nil), context: AccessContext(accessGroups: ["test", "*"]))
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }

        static func item(_ index: Int, synchronizable: Bool = true, secret: String? = nil) -> ItemRequest {
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes[.service] = .string(synchronizable ? "synced" : "local")
            request.attributes[.account] = .string("account \(index)")
            request.synchronizable = .only(synchronizable)
            request.secret = secret.map { Data($0.utf8) }
            return request
        }

        func add(_ range: Range<Int>, synchronizable: Bool = true) throws {
            _ = try handle.keychain.add(
                contentsOf: range.map { Self.item($0, synchronizable: synchronizable, secret: "secret \($0)") }, context: handle.context)
        }

        /// Rows the keychain opened during one exchange, and the exchange's report.
        func exchange(_ keychain: EmbeddedKeychain? = nil) throws -> (examined: Int, report: SyncReport) {
            let keychain = keychain ?? handle
            let before = keychain.keychain.queryPlanStatistics.rowsExamined
            let report = try SyncEngine.syncNow(keychain)
            return (keychain.keychain.queryPlanStatistics.rowsExamined - before, report)
        }
    }

    @Test("an exchange with no local change opens no synchronizable item, however many the keychain holds")
    func unchangedKeychainOpensNoItem() throws {
        let device = try Device()
        defer { device.stop() }
        try device.add(0..<20)
        try device.add(0..<5, synchronizable: false)
        #expect(try device.exchange().report.uploaded == 20)
        _ = try device.exchange()
        let few = try device.exchange()
        #expect(few.report.uploaded == 0 && few.report.uploadedDeletions == 0)
        #expect(few.examined < 20)

        try device.add(20..<50)
        #expect(try device.exchange().report.uploaded == 30)
        _ = try device.exchange()
        let many = try device.exchange()
        #expect(many.report.uploaded == 0 && many.report.uploadedDeletions == 0)
        // What an exchange opens does not grow with the items: only the sync state's own row,
        // which each exchange writes.
        #expect(many.examined == few.examined)
    }

    @Test("an exchange opens the one item changed since the last, uploads it, and uploads a deletion without opening anything")
    func changedItemIsTheOnlyOneOpened() throws {
        let device = try Device()
        defer { device.stop() }
        try device.add(0..<30)
        _ = try device.exchange()
        _ = try device.exchange()
        let idle = try device.exchange().examined

        var changes = ItemChanges()
        changes.secret = Data("changed".utf8)
        try device.handle.update(Device.item(7), changes: changes)
        let changed = try device.exchange()
        #expect(changed.report.uploaded == 1)
        #expect(changed.examined == idle + 1)

        try device.handle.delete(Device.item(8))
        let deleted = try device.exchange()
        #expect(deleted.report.uploadedDeletions == 1 && deleted.report.uploaded == 0)
        #expect(deleted.examined == idle)

        // Another device sees both.
        let other = try Device.keychain(device.directory, "second")
        try SyncEngine.join(other, conninfo: device.server.conninfo(), recoverySecret: device.secret)
        #expect(try device.exchange(other).report.applied == 29)
        var query = Device.item(7)
        query.returns = .data
        #expect(try other.search(query).first?.data == Data("changed".utf8))
        #expect(throws: KeychainError.self) { try other.search(Device.item(8)) }
    }

    @Test("a first sync adds its items without reading them back, and the next exchange opens none of them")
    func firstSyncDoesNotReadItemsBack() throws {
        let device = try Device()
        defer { device.stop() }
        let count = 300
        try device.add(0..<count)
        _ = try device.exchange()

        let second = try Device.keychain(device.directory, "second")
        try SyncEngine.join(second, conninfo: device.server.conninfo(), recoverySecret: device.secret)
        let first = try device.exchange(second)
        #expect(first.report.applied == count)
        #expect(first.examined < count)
        let next = try device.exchange(second)
        #expect(next.report.applied == 0 && next.report.uploaded == 0 && next.report.uploadedDeletions == 0)
        #expect(next.examined < 10)
        // And a change made on the new device is still found.
        var changes = ItemChanges()
        changes.secret = Data("changed on the second".utf8)
        try second.update(Device.item(3), changes: changes)
        #expect(try device.exchange(second).report.uploaded == 1)
    }

    @Test("an item a restore puts back at its first generation is a new row: opened and uploaded, not taken for the item last seen")
    func restoredItemIsOpened() throws {
        let device = try Device()
        defer { device.stop() }
        try device.add(0..<3)
        _ = try device.exchange()
        // Changed after the exchange, backed up, restored: back at generation 1, as when the
        // exchange saw it with its first secret.
        var changes = ItemChanges()
        changes.secret = Data("changed before the backup".utf8)
        try device.handle.update(Device.item(1), changes: changes)
        let backup = device.directory + "/backup"
        _ = try device.handle.backup(to: backup, password: Data("backup password".utf8))
        _ = try device.handle.restore(from: backup, password: Data("backup password".utf8))
        #expect(try device.exchange().report.uploaded == 1)

        let other = try Device.keychain(device.directory, "second")
        try SyncEngine.join(other, conninfo: device.server.conninfo(), recoverySecret: device.secret)
        _ = try device.exchange(other)
        var query = Device.item(1)
        query.returns = .data
        #expect(try other.search(query).first?.data == Data("changed before the backup".utf8))
    }

    @Test("the local versions survive their coding in the sync state, the earlier form without tokens is read, and malformed ones are refused")
    func localVersionsCoding() throws {
        var versions = LocalVersions()
        versions.entries[Data(repeating: 1, count: 16)] = LocalVersions.Entry(rowID: 7, generation: 3, token: Data(repeating: 7, count: 32))
        versions.entries[Data(repeating: 2, count: 16)] = LocalVersions.Entry(
            rowID: 9, generation: 1, item: (String(repeating: "ab", count: 32), String(repeating: "cd", count: 32)),
            token: Data(repeating: 9, count: 32))
        let decoded = try JSONDecoder().decode(LocalVersions.self, from: try JSONEncoder().encode(versions))
        #expect(decoded == versions)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LocalVersions.self, from: Data("\"AAEC\"".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LocalVersions.self, from: Data("\"2:AAEC\"".utf8)) }

        // The earlier form: 97-byte entries, no prefix, no token.
        var earlier = Data(repeating: 3, count: 16)
        withUnsafeBytes(of: Int64(11).littleEndian) { earlier.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(2).littleEndian) { earlier.append(contentsOf: $0) }
        earlier.append(0)
        earlier.append(Data(count: 64))
        let read = try JSONDecoder().decode(LocalVersions.self, from: Data("\"\(earlier.base64EncodedString())\"".utf8))
        #expect(read.entries[Data(repeating: 3, count: 16)] == LocalVersions.Entry(rowID: 11, generation: 2, token: nil))
        // An entry without its token is written back without it.
        #expect(try JSONDecoder().decode(LocalVersions.self, from: try JSONEncoder().encode(read)) == read)
    }

    @Test("hexadecimal digits decode in either case, and odd or non-hex input is refused")
    func hexDigitsDecode() {
        #expect(SyncCrypto.bytes(hex: "00ff7Fa0") == Data([0x00, 0xff, 0x7f, 0xa0]))
        #expect(SyncCrypto.bytes(hex: "") == Data())
        #expect(SyncCrypto.bytes(hex: "abc") == nil)
        #expect(SyncCrypto.bytes(hex: "zz") == nil)
        #expect(SyncCrypto.bytes(hex: "0g") == nil)
        #expect(PostgresRows.decodeHex("\\x0a0B") == Data([0x0a, 0x0b]))
        #expect(PostgresRows.decodeHex("0a0b") == nil)
        #expect(PostgresRows.decodeHex("\\x0a0") == nil)
    }
}
