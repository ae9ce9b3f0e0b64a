import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// A passcode protects from the moment it is set: every change of passcode replaces the class
/// keys it protects, so an earlier copy of the keybag opens nothing written after the change.
@Suite("Passcode changes replace the class keys")
struct PasscodeRekeyTests {
    static func data(_ text: String) -> Data { Data(text.utf8) }

    /// The keybag file's bytes.
    static func keybagBytes(_ keychain: Keychain) throws -> Data {
        try #require(FileManager.default.contents(atPath: keychain.keybagPath))
    }

    /// Puts `bytes` back as the keybag and, when `rebind` (an attacker who also edits the
    /// database), makes the database name that keybag.
    static func restoreKeybag(_ bytes: Data, of temporary: TemporaryKeychain, rebind: Bool) throws {
        Keychain.forgetOpenInstance(path: temporary.keychain.path)
        try bytes.write(to: URL(fileURLWithPath: temporary.keychain.keybagPath))
        if rebind {
            let uuid = try #require(try Keybag.decode(bytes, deviceKey: temporary.keychain.deviceKey).uuid as Data?)
            let connection = try SQLiteConnection(path: temporary.keychain.path)
            try connection.statement("UPDATE keychain SET value = ? WHERE key = 'keybag-uuid'").bind([.blob(uuid)]).run()
        }
    }

    @Test("a keybag copied before the passcode was set opens nothing written after it, even with the database edited to name it")
    func oldKeybagOpensNothingWrittenAfterThePasscodeWasSet() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "before", account: "me", secret: "old-secret")
        let copy = try Self.keybagBytes(temporary.keychain)

        try temporary.keychain.changePasscode(from: nil, to: Self.data("Str0ng-pass"))
        try temporary.addPassword(service: "after-a", account: "me", secret: "new-secret-a", protection: .whenUnlocked)
        try temporary.addPassword(service: "after-c", account: "me", secret: "new-secret-c", protection: .afterFirstUnlock)
        try temporary.addPassword(service: "after-d", account: "me", secret: "new-secret-d", protection: .always)

        // The copy put back, as the attack did: the keychain no longer opens with it.
        try Self.restoreKeybag(copy, of: temporary, rebind: false)
        #expect(status { _ = try Keychain.open(path: temporary.keychain.path, create: false, options: TemporaryKeychain.options) } == .invalidKeychain)

        // With the database edited to name the copy, its keys open no row of classes A and C:
        // not the ones written after the change, and not the older ones (sealed again).
        try Self.restoreKeybag(copy, of: temporary, rebind: true)
        let attacked = try Keychain.open(path: temporary.keychain.path, create: false, options: TemporaryKeychain.options)
        #expect(attacked.lockState == .unlocked, "the copy's keys open without a passcode")
        for service in ["after-a", "after-c", "before"] {
            #expect(status { _ = try attacked.secret(service: service, account: "me") } == .decode, "\(service)")
        }
        // Class D is not protected by a passcode, by definition.
        #expect(try attacked.secret(service: "after-d", account: "me") == Self.data("new-secret-d"))
        #expect(try attacked.allSecrets() == ["new-secret-d"])
    }

    @Test("a keybag copied under the old passcode opens nothing written after a change or a removal, with the old passcode")
    func oldPasscodeKeybagOpensNothingWrittenAfterAChange() throws {
        for removing in [false, true] {
            let temporary = try TemporaryKeychain(passcode: "first")
            try temporary.addPassword(service: "before", account: "me", secret: "old-secret")
            let copy = try Self.keybagBytes(temporary.keychain)
            try temporary.keychain.changePasscode(from: Self.data("first"), to: removing ? nil : Self.data("second"))
            try temporary.addPassword(service: "after", account: "me", secret: "new-secret", protection: .afterFirstUnlock)
            try temporary.keychain.relabel(service: "before", account: "me", to: "changed")

            try Self.restoreKeybag(copy, of: temporary, rebind: true)
            let attacked = try Keychain.open(path: temporary.keychain.path, create: false, options: TemporaryKeychain.options)
            try attacked.unlock(passcode: Self.data("first"))
            for service in ["after", "before"] {
                #expect(status { _ = try attacked.secret(service: service, account: "me") } == .decode, "\(service), removing: \(removing)")
            }
        }
    }

    @Test("every item stays readable with the new passcode, and an akpu item survives a change but not a removal")
    func itemsSurviveTheChange() throws {
        let temporary = try TemporaryKeychain(passcode: "first")
        for protection in Protection.allCases {
            try temporary.addPassword(service: protection.rawValue, account: "me", secret: "secret-\(protection.rawValue)", protection: protection)
        }
        try temporary.keychain.changePasscode(from: Self.data("first"), to: Self.data("second"))
        var keychain = try temporary.reopened()
        #expect(status { try keychain.unlock(passcode: Self.data("first")) } == .authFailed)
        try keychain.unlock(passcode: Self.data("second"))
        for protection in Protection.allCases {
            #expect(try keychain.secret(service: protection.rawValue, account: "me") == Self.data("secret-\(protection.rawValue)"))
        }
        #expect(try keychain.changePasscode(from: Self.data("second"), to: nil) == 1)
        keychain = try temporary.reopened()
        #expect(keychain.lockState == .unlocked)
        #expect(try keychain.allSecrets().sorted() == Protection.allCases.filter { $0 != .whenPasscodeSetThisDeviceOnly }.map { "secret-\($0.rawValue)" }.sorted())
    }

    @Test("a change interrupted before its commit leaves the old keybag and rows, opening with the old passcode")
    func interruptedBeforeCommit() throws {
        var options = TemporaryKeychain.options
        options.passcodeChangeInterruption = { point in
            if point == .beforeCommit { throw KeychainError(.io, "interrupted") }
        }
        let temporary = try TemporaryKeychain(passcode: "first", options: options)
        try temporary.addPassword(service: "svc", account: "me", secret: "kept")
        #expect(status { try temporary.keychain.changePasscode(from: Self.data("first"), to: Self.data("second")) } == .io)
        #expect(!FileManager.default.fileExists(atPath: Keybag.stagedPath(temporary.keychain.keybagPath)))
        let keychain = try temporary.reopened()
        #expect(status { try keychain.unlock(passcode: Self.data("second")) } == .authFailed)
        try keychain.unlock(passcode: Self.data("first"))
        #expect(try keychain.secret(service: "svc", account: "me") == Self.data("kept"))
    }

    @Test("a change interrupted after its commit, before the new keybag moved into place, completes at the next open")
    func interruptedAfterCommit() throws {
        var options = TemporaryKeychain.options
        options.passcodeChangeInterruption = { point in
            guard point == .afterCommit else { return }
            throw KeychainError(.io, "interrupted")
        }
        let temporary = try TemporaryKeychain(passcode: "first", options: options)
        try temporary.addPassword(service: "svc", account: "me", secret: "kept")
        let before = try Self.keybagBytes(temporary.keychain)
        // Interrupted after the commit: the database names the new keybag, which is moved into
        // place when the failure is settled; put the old file back to stand for a crash there.
        #expect(status { try temporary.keychain.changePasscode(from: Self.data("first"), to: Self.data("second")) } == .io)
        let after = try Self.keybagBytes(temporary.keychain)
        #expect(after != before)
        Keychain.forgetOpenInstance(path: temporary.keychain.path)
        #expect(FileManager.default.createFile(
            atPath: Keybag.stagedPath(temporary.keychain.keybagPath), contents: after, attributes: [.posixPermissions: 0o600]))
        try before.write(to: URL(fileURLWithPath: temporary.keychain.keybagPath))

        let keychain = try Keychain.open(path: temporary.keychain.path, create: false, options: TemporaryKeychain.options)
        #expect(try Self.keybagBytes(keychain) == after, "the staged keybag was moved into place")
        #expect(!FileManager.default.fileExists(atPath: Keybag.stagedPath(keychain.keybagPath)))
        #expect(status { try keychain.unlock(passcode: Self.data("first")) } == .authFailed)
        try keychain.unlock(passcode: Self.data("second"))
        #expect(try keychain.secret(service: "svc", account: "me") == Self.data("kept"))
    }

    @Test("a process holding the keychain adopts the keybag another process replaced: it never seals with the old keys")
    func otherProcessAdoptsTheNewKeybag() throws {
        let temporary = try TemporaryKeychain(passcode: "first")
        try temporary.addPassword(service: "svc", account: "me", secret: "kept", protection: .afterFirstUnlock)
        let other = try Keychain.openSeparately(path: temporary.keychain.path, options: TemporaryKeychain.options)
        try other.unlock(passcode: Self.data("first"))
        #expect(try other.secret(service: "svc", account: "me") == Self.data("kept"))

        try temporary.keychain.changePasscode(from: Self.data("first"), to: Self.data("second"))
        // The other process's keys are gone with the keybag: it is before its first unlock.
        #expect(status { _ = try other.secret(service: "svc", account: "me") } == .interactionNotAllowed)
        #expect(status { try other.addPassword(service: "late", account: "me", secret: "x", protection: .afterFirstUnlock) } == .interactionNotAllowed)
        #expect(other.lockState == .beforeFirstUnlock)
        #expect(status { try other.unlock(passcode: Self.data("first")) } == .authFailed)
        try other.unlock(passcode: Self.data("second"))
        try other.addPassword(service: "late", account: "me", secret: "written-by-other", protection: .whenUnlocked)
        #expect(try temporary.keychain.secret(service: "late", account: "me") == Self.data("written-by-other"))
        #expect(try other.secret(service: "svc", account: "me") == Self.data("kept"))
    }
}
