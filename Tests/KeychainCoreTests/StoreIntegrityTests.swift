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
        try temporary.sql("UPDATE items SET secret = substr(secret, 1, 40) || X'00' || substr(secret, 42) WHERE rowid = 1")
        #expect(throws: KeychainError.self) { try temporary.secret(service: "a", account: "1") }
        #expect(try temporary.secret(service: "b", account: "2") == Data("second".utf8))
    }

    @Test("a key file that does not belong to the database is refused")
    func foreignKeyFile() throws {
        let first = try TemporaryKeychain()
        try first.addPassword(service: "a", account: "1", secret: "first")
        let second = try TemporaryKeychain()
        let keyPath = first.keychain.path + ".key"
        try FileManager.default.removeItem(atPath: keyPath)
        try FileManager.default.copyItem(atPath: second.keychain.path + ".key", toPath: keyPath)
        // A fresh process would open the file anew; emulate it by opening a copy under a new path.
        let copyDirectory = first.directory + "-copy"
        try FileManager.default.createDirectory(atPath: copyDirectory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: first.keychain.path + suffix) {
            try FileManager.default.copyItem(atPath: first.keychain.path + suffix, toPath: copyDirectory + "/k.keychain-db" + suffix)
        }
        try FileManager.default.copyItem(atPath: keyPath, toPath: copyDirectory + "/k.keychain-db.key")
        #expect(throws: KeychainError.self) { try Keychain.open(path: copyDirectory + "/k.keychain-db") }
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
