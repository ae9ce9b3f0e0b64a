import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore

/// The sealer tells a locked row from a damaged one by type: the engine's switches on
/// `RowOutcome` decide from it whether a read stops (locked) or skips the row (damaged).
@Suite("Opening a stored row says whether it opened, is locked or is damaged")
struct RowOutcomeTests {
    /// Every stored row of `keychain`, as the engine reads it (checked against the ledger).
    static func rows(of keychain: Keychain) throws -> [StoredRow] {
        try keychain.store.withConnection { try keychain.store.allRows(in: $0) }
    }

    /// The row of the generic password whose service is `service`, opened with all keys.
    static func row(service: String, in rows: [StoredRow], sealer: ItemSealer) throws -> StoredRow {
        try #require(
            rows.first { row in
                guard case .opened(let record) = sealer.open(row) else { return false }
                return record.attributes[.service] == .string(service)
            })
    }

    static func kind<Value>(_ outcome: RowOutcome<Value>) -> String {
        switch outcome {
        case .opened: "opened"
        case .locked: "locked"
        case .damaged: "damaged"
        }
    }

    @Test("an intact row opens; a row of a locked class is locked, never damaged, and opens after an unlock")
    func lockedIsNotDamaged() throws {
        let temporary = try LockStateTests.populated()
        let unlocked = temporary.keychain
        let rows = try Self.rows(of: unlocked)
        let classA = try Self.row(service: Protection.whenUnlocked.rawValue, in: rows, sealer: unlocked.store.sealer)
        let classD = try Self.row(service: Protection.always.rawValue, in: rows, sealer: unlocked.store.sealer)
        let secret = try #require(classA.secret)

        let keychain = try temporary.reopened()
        #expect(keychain.lockState == .beforeFirstUnlock)
        #expect(Self.kind(keychain.store.sealer.open(classA)) == "locked")
        #expect(Self.kind(keychain.store.sealer.open(classA, unless: { _ in true })) == "locked")
        #expect(Self.kind(keychain.store.sealer.authenticate(classA)) == "locked")
        #expect(Self.kind(keychain.store.sealer.openSecret(secret, sealedIn: classA)) == "locked")
        #expect(Self.kind(keychain.store.sealer.open(classD)) == "opened")

        try keychain.unlock(passcode: Data("1234".utf8))
        guard case .opened(let record) = keychain.store.sealer.open(classA) else {
            Issue.record("an intact row of an unlocked class did not open")
            return
        }
        #expect(record.attributes[.service] == .string(Protection.whenUnlocked.rawValue))
        guard case .opened(let opened) = keychain.store.sealer.openSecret(secret, sealedIn: classA) else {
            Issue.record("an intact secret did not open")
            return
        }
        #expect(opened.withUnsafeBytes { Data($0) } == Data("secret-\(Protection.whenUnlocked.rawValue)".utf8))
    }

    @Test("a row altered, rolled back, relabelled or of a class whose keys are lost is damaged, not locked")
    func damagedIsNotLocked() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "s", account: "a", secret: "secret")
        let sealer = temporary.keychain.store.sealer
        let row = try #require(try Self.rows(of: temporary.keychain).first)
        let secret = try #require(row.secret)
        #expect(Self.kind(sealer.open(row)) == "opened")

        var altered = row
        altered.metadata[altered.metadata.startIndex + 20] ^= 1
        #expect(Self.kind(sealer.open(altered)) == "damaged")
        #expect(Self.kind(sealer.open(altered, unless: { _ in true })) == "damaged")
        #expect(Self.kind(sealer.authenticate(altered)) == "damaged")

        var alteredSecret = secret
        alteredSecret[alteredSecret.startIndex + alteredSecret.count - 1] ^= 1
        #expect(Self.kind(sealer.openSecret(alteredSecret, sealedIn: row)) == "damaged")
        #expect(Self.kind(sealer.openSecret(Data([2, 0, 1]), sealedIn: row)) == "damaged")

        var rolledBack = row
        rolledBack.isCurrent = false
        #expect(Self.kind(sealer.open(rolledBack)) == "damaged")
        #expect(Self.kind(sealer.openSecret(secret, sealedIn: rolledBack)) == "damaged")

        // Another protection class in the clear column: the record binds its own.
        var relabelled = row
        relabelled.keyClass = Protection.always.rawValue
        #expect(Self.kind(sealer.open(relabelled)) == "damaged")
        var unknownClass = row
        unknownClass.keyClass = "zz"
        #expect(Self.kind(sealer.open(unknownClass)) == "damaged")

        // The passcode-only class in a key ring that holds no passcode: such items were lost with
        // the passcode and can never open again.
        var passcodeOnly = row
        passcodeOnly.keyClass = Protection.whenPasscodeSetThisDeviceOnly.rawValue
        let withoutPasscode = ItemSealer(
            keyRing: try KeyRing(
                index: temporary.keychain.keyRing.index, classKeys: [:], hasPasscode: false, passcodeClassEntry: nil,
                autoLock: nil, clock: ManualClock()))
        #expect(Self.kind(withoutPasscode.open(passcodeOnly)) == "damaged")
        #expect(Self.kind(withoutPasscode.open(row)) == "locked")
    }
}
