import Foundation
import Testing

@testable import KeychainCore

@Suite("The encrypted store")
struct StoreIntegrityTests {
    @Test("a stored secret round-trips and a second add of the same key is a duplicate")
    func roundTrip() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "svc", account: "me", secret: "pw-1")
        #expect(try temporary.secret(service: "svc", account: "me") == Data("pw-1".utf8))
        #expect(throws: KeychainError(.duplicateItem, "an item with the same primary key exists")) {
            try temporary.addPassword(service: "svc", account: "me", secret: "pw-2")
        }
    }

    @Test("swapping two rows' sealed metadata never yields the other item; both become unreadable")
    func swappedMetadata() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "a", account: "1", secret: "first")
        try temporary.addPassword(service: "b", account: "2", secret: "second")
        try temporary.swapColumn("metadata")
        #expect(throws: KeychainError.self) { try temporary.secret(service: "a", account: "1") }
        #expect(throws: KeychainError.self) { try temporary.secret(service: "b", account: "2") }
    }

    @Test("swapping two rows' sealed secrets never returns the other item's secret")
    func swappedSecrets() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "a", account: "1", secret: "first")
        try temporary.addPassword(service: "b", account: "2", secret: "second")
        try temporary.swapColumn("secret")
        #expect(throws: KeychainError.self) { try temporary.secret(service: "a", account: "1") }
        #expect(throws: KeychainError.self) { try temporary.secret(service: "b", account: "2") }
    }

    @Test("a flipped byte in a secret is detected and the rest of the keychain stays readable")
    func flippedSecretByte() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "a", account: "1", secret: "first")
        try temporary.addPassword(service: "b", account: "2", secret: "second")
        // Byte 41 set to a value it does not hold (a fixed value would change nothing one time in 256).
        try temporary.sql(
            """
            UPDATE items SET secret = substr(secret, 1, 40)
                || (CASE WHEN substr(secret, 41, 1) = X'00' THEN X'01' ELSE X'00' END) || substr(secret, 42)
            WHERE rowid = 1
            """)
        #expect(throws: KeychainError.self) { try temporary.secret(service: "a", account: "1") }
        #expect(try temporary.secret(service: "b", account: "2") == Data("second".utf8))
    }

    @Test("a keybag of another keychain in the same directory is refused")
    func foreignKeybagSameDevice() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "a", account: "1", secret: "first")
        let other = try Keychain.open(path: temporary.directory + "/other.keychain-db", options: TemporaryKeychain.options)
        let copy = temporary.directory + "/copy.keychain-db"
        try temporary.copyDatabase(to: copy)
        try FileManager.default.copyItem(atPath: other.path + ".keybag", toPath: copy + ".keybag")
        #expect(throws: KeychainError(.invalidKeychain, "the keybag does not belong to this keychain")) {
            try Keychain.open(path: copy, options: TemporaryKeychain.options)
        }
    }

    @Test("a keychain copied to another device (another device key) does not open")
    func keychainOnAnotherDevice() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "a", account: "1", secret: "first")
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("kc-core-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        try temporary.copyDatabase(to: elsewhere + "/test.keychain-db")
        try FileManager.default.copyItem(atPath: temporary.keychain.path + ".keybag", toPath: elsewhere + "/test.keychain-db.keybag")
        #expect(throws: KeychainError(.invalidKeychain, "the keybag has been altered or belongs to another device")) {
            try Keychain.open(path: elsewhere + "/test.keychain-db", options: TemporaryKeychain.options)
        }
    }

    @Test("many threads adding the same primary key: exactly one wins")
    func concurrentDuplicateAdds() throws {
        let temporary = try TemporaryKeychain()
        let outcomes = OutcomeCounter()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            do {
                try temporary.addPassword(service: "race", account: "same", secret: "writer-\(index)")
                outcomes.record(success: true)
            } catch let error as KeychainError where error.code == .duplicateItem {
                outcomes.record(success: false)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(outcomes.successes == 1)
        #expect(outcomes.duplicates == 15)
        let secret = try #require(try temporary.secret(service: "race", account: "same"))
        #expect(String(decoding: secret, as: UTF8.self).hasPrefix("writer-"))
    }

    @Test("files are 0600 in a 0700 directory")
    func permissions() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "a", account: "1", secret: "first")
        let manager = FileManager.default
        let directoryMode = try manager.attributesOfItem(atPath: temporary.directory)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        for file in try manager.contentsOfDirectory(atPath: temporary.directory) {
            let mode = try manager.attributesOfItem(atPath: temporary.directory + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
    }
}

/// Thread-safe tally for concurrency tests.
final class OutcomeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var successes = 0
    private(set) var duplicates = 0

    func record(success: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if success { successes += 1 } else { duplicates += 1 }
    }
}

@Suite("Tampering with rows is detected and never yields another item's secret")
struct RowTamperingTests {
    /// A passcode keychain (unlocked) with two items of different classes, rows 1 and 2.
    static func twoItems() throws -> TemporaryKeychain {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.addPassword(service: "a", account: "1", secret: "first", protection: .whenUnlocked)
        try temporary.addPassword(service: "b", account: "2", secret: "second", protection: .always)
        return temporary
    }

    /// What reading both items gives: each secret, or nil when the item is unreadable.
    static func readBoth(_ temporary: TemporaryKeychain) -> [Data?] {
        [("a", "1"), ("b", "2")].map { service, account in
            (try? temporary.secret(service: service, account: account)) ?? nil
        }
    }

    @Test("swapping two rows' secrets, across protection classes, returns neither secret")
    func swappedSecrets() throws {
        let temporary = try Self.twoItems()
        try temporary.swapColumns(["secret"], 1, 2)
        #expect(Self.readBoth(temporary) == [nil, nil])
    }

    @Test("swapping two rows' metadata with their protection classes returns neither item")
    func swappedMetadataAndClass() throws {
        let temporary = try Self.twoItems()
        try temporary.swapColumns(["metadata", "keyclass"], 1, 2)
        #expect(Self.readBoth(temporary) == [nil, nil])
        #expect(status { _ = try temporary.keychain.allSecrets() } == .itemNotFound)
    }

    @Test("swapping two rows' whole sealed parts (metadata, secret, class) returns neither item")
    func swappedSealedParts() throws {
        let temporary = try Self.twoItems()
        try temporary.swapColumns(["metadata", "secret", "keyclass"], 1, 2)
        #expect(Self.readBoth(temporary) == [nil, nil])
    }

    @Test("swapping two rows' UUIDs or tokens makes both unreadable")
    func swappedIdentity() throws {
        for column in ["uuid", "pk"] {
            let temporary = try Self.twoItems()
            try temporary.swapColumns([column], 1, 2)
            #expect(Self.readBoth(temporary) == [nil, nil], "\(column)")
        }
    }

    @Test("relabelling a row's protection class (ak → dk) does not make it readable while locked")
    func relabelledProtectionClass() throws {
        let temporary = try Self.twoItems()
        try temporary.sql("UPDATE items SET keyclass = 'dk' WHERE rowid = 1")
        temporary.keychain.lock()
        #expect(Self.readBoth(temporary) == [nil, Data("second".utf8)])
        try temporary.keychain.unlock(passcode: Data("1234".utf8))
        #expect(Self.readBoth(temporary) == [nil, Data("second".utf8)])
    }

    @Test("a flipped byte in a secret's wrapped key or ciphertext, or in the metadata, is detected")
    func flippedBytes() throws {
        for (column, offset) in [("secret", 5), ("secret", 70), ("metadata", 20)] {
            let temporary = try Self.twoItems()
            try temporary.flipByte(column: column, rowID: 2, offset: offset)
            #expect(Self.readBoth(temporary) == [Data("first".utf8), nil], "\(column) at \(offset)")
        }
    }
}
