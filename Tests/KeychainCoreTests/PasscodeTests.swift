import Foundation
import KeychainCrypto
import Testing

@_spi(Testing) @testable import KeychainCore

@Suite("The passcode: set, change, remove, wrong attempts and their delays")
struct PasscodeTests {
    static func data(_ text: String) -> Data { Data(text.utf8) }

    @Test("a passcode can be set on a keychain created without one, changed, and removed")
    func setChangeRemove() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "svc", account: "me", secret: "kept")
        try temporary.keychain.changePasscode(from: nil, to: Self.data("first"))
        #expect(temporary.keychain.hasPasscode)
        var keychain = try temporary.reopened()
        #expect(keychain.lockState == .beforeFirstUnlock)
        #expect(status { try keychain.unlock(passcode: Self.data("wrong")) } == .authFailed)
        try keychain.unlock(passcode: Self.data("first"))
        #expect(try keychain.secret(service: "svc", account: "me") == Self.data("kept"))

        #expect(status { try keychain.changePasscode(from: Self.data("nope"), to: Self.data("second")) } == .authFailed)
        try keychain.changePasscode(from: Self.data("first"), to: Self.data("second"))
        keychain = try temporary.reopened()
        #expect(status { try keychain.unlock(passcode: Self.data("first")) } == .authFailed)
        try keychain.unlock(passcode: Self.data("second"))
        #expect(try keychain.secret(service: "svc", account: "me") == Self.data("kept"))

        try keychain.changePasscode(from: Self.data("second"), to: nil)
        #expect(!keychain.hasPasscode)
        keychain = try temporary.reopened()
        #expect(keychain.lockState == .unlocked)
        #expect(try keychain.secret(service: "svc", account: "me") == Self.data("kept"))
    }

    @Test("a WhenPasscodeSetThisDeviceOnly item needs a passcode: errSecAuthFailed without one")
    func passcodeOnlyItemNeedsPasscode() throws {
        let temporary = try TemporaryKeychain()
        #expect(status { try temporary.addPassword(service: "p", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly) } == .authFailed)
        try temporary.keychain.changePasscode(from: nil, to: Self.data("1234"))
        try temporary.addPassword(service: "p", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly)
        #expect(try temporary.secret(service: "p", account: "me") == Self.data("x"))
    }

    @Test("removing the passcode destroys the passcode-only class key and deletes those items")
    func removingThePasscodeDeletesPasscodeOnlyItems() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.addPassword(service: "p1", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly)
        try temporary.addPassword(service: "p2", account: "me", secret: "y", protection: .whenPasscodeSetThisDeviceOnly)
        try temporary.addPassword(service: "other", account: "me", secret: "z", protection: .whenUnlocked)
        #expect(try temporary.keychain.changePasscode(from: Self.data("1234"), to: nil) == 2)
        #expect(try temporary.keychain.allSecrets() == ["z"])
        #expect(status { try temporary.addPassword(service: "p3", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly) } == .authFailed)
        let keybag = try Keybag.load(path: temporary.keychain.keybagPath, deviceKey: temporary.keychain.deviceKey)
        #expect(keybag?.entry(.whenPasscodeSetThisDeviceOnly) == nil)
        #expect(keybag?.passcode == nil)
        // A new passcode brings a new class: the old items stay gone.
        try temporary.keychain.changePasscode(from: nil, to: Self.data("5678"))
        try temporary.addPassword(service: "p1", account: "me", secret: "new", protection: .whenPasscodeSetThisDeviceOnly)
        #expect(try temporary.secret(service: "p1", account: "me") == Self.data("new"))
    }

    @Test("passcode-only items left behind by an interrupted removal are deleted at the next open")
    func interruptedRemovalIsFinished() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.addPassword(service: "p", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly)
        // Simulate a process that wrote the new keybag and stopped before deleting the items.
        let keychain = temporary.keychain
        var keybag = try #require(try Keybag.load(path: keychain.keybagPath, deviceKey: keychain.deviceKey))
        var keys = try keybag.unwrap(KeybagClass.allCases, wrapping: keybag.wrappingKeys(deviceKey: keychain.deviceKey, passcode: SecureBytes(copying: Self.data("1234"))))
        keys.removeValue(forKey: .whenPasscodeSetThisDeviceOnly)
        keybag.passcode = nil
        try keybag.setEntries(keys, wrapping: keybag.wrappingKeys(deviceKey: keychain.deviceKey, passcode: nil))
        try keybag.save(path: keychain.keybagPath, deviceKey: keychain.deviceKey)
        let reopened = try temporary.reopened()
        try reopened.addPassword(service: "p", account: "me", secret: "d", protection: .always)
        #expect(try reopened.allSecrets() == ["d"])
    }

    @Test("wrong passcodes: no delay for 1–4 failures, then 1 min, 5 min, 15 min, 15 min, 1 h")
    func escalatingDelays() throws {
        let clock = ManualClock()
        var options = TemporaryKeychain.options
        options.clock = clock
        let temporary = try TemporaryKeychain(passcode: "right", options: options)
        let keychain = temporary.keychain
        for attempt in 1...4 {
            #expect(status { try keychain.unlock(passcode: Self.data("wrong-\(attempt)")) } == .authFailed)
            #expect(try keychain.passcodeRetryDelay == nil)
        }
        let delays: [TimeInterval] = [60, 300, 900, 900, 3600, 3600]
        for (offset, delay) in delays.enumerated() {
            #expect(status { try keychain.unlock(passcode: Self.data("wrong-x\(offset)")) } == .authFailed)
            #expect(try keychain.passcodeRetryDelay == delay)
            // During the delay even the right passcode is not evaluated (and the attempt is not counted).
            clock.advance(by: delay - 1)
            #expect(status { try keychain.unlock(passcode: Self.data("right")) } == .authFailed)
            #expect(try keychain.passcodeRetryDelay == 1)
            clock.advance(by: 1)
        }
        try keychain.unlock(passcode: Self.data("right"))
        #expect(try keychain.passcodeRetryDelay == nil)
        for attempt in 1...4 {
            #expect(status { try keychain.unlock(passcode: Self.data("again-\(attempt)")) } == .authFailed)
        }
        #expect(try keychain.passcodeRetryDelay == nil)
    }

    @Test("the same wrong passcode twice in a row counts once")
    func repeatedWrongPasscodeCountsOnce() throws {
        let clock = ManualClock()
        var options = TemporaryKeychain.options
        options.clock = clock
        let temporary = try TemporaryKeychain(passcode: "right", options: options)
        for _ in 0..<10 {
            #expect(status { try temporary.keychain.unlock(passcode: Self.data("same")) } == .authFailed)
        }
        for attempt in 1...3 {
            #expect(status { try temporary.keychain.unlock(passcode: Self.data("other-\(attempt)")) } == .authFailed)
        }
        #expect(try temporary.keychain.passcodeRetryDelay == nil)
        #expect(status { try temporary.keychain.unlock(passcode: Self.data("fifth")) } == .authFailed)
        #expect(try temporary.keychain.passcodeRetryDelay == 60)
    }

    @Test("the failure record survives a restart: a new process still waits")
    func delaysPersistAcrossRestart() throws {
        let clock = ManualClock()
        var options = TemporaryKeychain.options
        options.clock = clock
        let temporary = try TemporaryKeychain(passcode: "right", options: options)
        for attempt in 1...5 {
            #expect(status { try temporary.keychain.unlock(passcode: Self.data("wrong-\(attempt)")) } == .authFailed)
        }
        let restarted = try temporary.reopened(options: options)
        #expect(try restarted.passcodeRetryDelay == 60)
        #expect(status { try restarted.unlock(passcode: Self.data("right")) } == .authFailed)
        #expect(restarted.lockState == .beforeFirstUnlock)
        clock.advance(by: 60)
        try restarted.unlock(passcode: Self.data("right"))
        #expect(restarted.lockState == .unlocked)
    }

    @Test("a wrong current passcode when changing it counts as a failed attempt")
    func changeCountsFailures() throws {
        let clock = ManualClock()
        var options = TemporaryKeychain.options
        options.clock = clock
        let temporary = try TemporaryKeychain(passcode: "right", options: options)
        for attempt in 1...5 {
            #expect(status { try temporary.keychain.changePasscode(from: Self.data("bad-\(attempt)"), to: Self.data("new")) } == .authFailed)
        }
        #expect(try temporary.keychain.passcodeRetryDelay == 60)
    }

    @Test("a keychain without a passcode: an empty passcode unlocks it, another fails and is not counted")
    func unlockWithoutPasscode() throws {
        let temporary = try TemporaryKeychain()
        try temporary.keychain.unlock(passcode: Data())
        for _ in 0..<6 {
            #expect(status { try temporary.keychain.unlock(passcode: Self.data("anything")) } == .authFailed)
        }
        #expect(try temporary.keychain.passcodeRetryDelay == nil)
        #expect(status { try temporary.keychain.changePasscode(from: Self.data("anything"), to: Self.data("new")) } == .authFailed)
    }

    @Test("create refuses an existing keychain with errSecDuplicateKeychain")
    func createTwice() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        #expect(status { try Keychain.create(path: temporary.keychain.path, passcode: Self.data("x"), options: TemporaryKeychain.options) } == .duplicateKeychain)
        let plain = try TemporaryKeychain()
        #expect(status { try Keychain.create(path: plain.keychain.path, passcode: nil, options: TemporaryKeychain.options) } == .duplicateKeychain)
    }

    @Test("settings round-trip through the keybag")
    func settingsRoundTrip() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        #expect(try temporary.keychain.settings() == KeychainSettings())
        let settings = KeychainSettings(lockOnSleep: true, useLockInterval: true, lockInterval: 600)
        try temporary.keychain.updateSettings(settings)
        #expect(try temporary.reopened().settings() == settings)
    }

    @Test("delete removes the database and keybag, keeps the directory's device key, and is final")
    func deleteKeychain() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.addPassword(service: "a", account: "me", secret: "s")
        try Keychain.delete(path: temporary.keychain.path)
        #expect(try temporary.files().map(\.name) == ["device.key"])
        #expect(status { _ = try Keychain.open(path: temporary.keychain.path, create: false) } == .noSuchKeychain)
        #expect(status { try Keychain.delete(path: temporary.keychain.path) } == .noSuchKeychain)
    }
}

@Suite("Passcode changes made by another process")
struct CrossProcessPasscodeTests {
    @Test("a passcode removed by another process: an add of a passcode-only item notices it")
    func removedElsewhere() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        let first = temporary.keychain
        let second = try Keychain.openSeparately(path: first.path, options: TemporaryKeychain.options)
        try second.changePasscode(from: Data("1234".utf8), to: nil)
        #expect(status { try first.addPassword(service: "p", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly) } == .authFailed)
        // Unlocking brings this process in line: no passcode, every class available.
        first.lock()
        #expect(status { try first.unlock(passcode: Data("1234".utf8)) } == .authFailed)
        #expect(first.lockState == .unlocked)
        #expect(!first.hasPasscode)
        try first.addPassword(service: "a", account: "me", secret: "x", protection: .whenUnlocked)
    }

    @Test("a passcode changed by another process: the passcode-only class must be unlocked again")
    func changedElsewhere() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        let first = temporary.keychain
        let second = try Keychain.openSeparately(path: first.path, options: TemporaryKeychain.options)
        try second.unlock(passcode: Data("1234".utf8))
        try second.changePasscode(from: Data("1234".utf8), to: Data("5678".utf8))
        #expect(status { try first.addPassword(service: "p", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly) } == .interactionNotAllowed)
        try first.unlock(passcode: Data("5678".utf8))
        try first.addPassword(service: "p", account: "me", secret: "x", protection: .whenPasscodeSetThisDeviceOnly)
        #expect(try second.secret(service: "p", account: "me") == Data("x".utf8))
    }
}
