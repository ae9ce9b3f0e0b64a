import Foundation
import KeychainCrypto
import Testing

@_spi(Testing) @testable import KeychainCore

@Suite("Lock states: which protection classes a process can use")
struct LockStateTests {
    static let classA: [Protection] = [.whenUnlocked, .whenUnlockedThisDeviceOnly]
    static let classC: [Protection] = [.afterFirstUnlock, .afterFirstUnlockThisDeviceOnly]
    static let classD: [Protection] = [.always, .alwaysThisDeviceOnly]

    /// A passcode keychain holding one item of every class (service = the pdmn value).
    static func populated() throws -> TemporaryKeychain {
        let temporary = try TemporaryKeychain(passcode: "1234")
        for protection in Protection.allCases {
            try temporary.addPassword(service: protection.rawValue, account: "me", secret: "secret-\(protection.rawValue)", protection: protection)
        }
        return temporary
    }

    @Test("without a passcode the keychain is unlocked from the start and lock() changes nothing")
    func noPasscodeIsAlwaysUnlocked() throws {
        let temporary = try TemporaryKeychain()
        #expect(!temporary.keychain.hasPasscode)
        #expect(temporary.keychain.lockState == .unlocked)
        try temporary.addPassword(service: "a", account: "me", secret: "s", protection: .whenUnlocked)
        temporary.keychain.lock()
        #expect(temporary.keychain.lockState == .unlocked)
        #expect(try temporary.secret(service: "a", account: "me") == Data("s".utf8))
        let reopened = try temporary.reopened()
        #expect(reopened.lockState == .unlocked)
        #expect(try reopened.secret(service: "a", account: "me") == Data("s".utf8))
    }

    @Test("a new process with a passcode starts before the first unlock: only class D is available")
    func beforeFirstUnlock() throws {
        let temporary = try Self.populated()
        let keychain = try temporary.reopened()
        #expect(keychain.lockState == .beforeFirstUnlock)
        for protection in Self.classA + Self.classC + [.whenPasscodeSetThisDeviceOnly] {
            #expect(status { _ = try keychain.secret(service: protection.rawValue, account: "me") } == .interactionNotAllowed, "\(protection)")
            #expect(status { try keychain.addPassword(service: "new", account: protection.rawValue, secret: "x", protection: protection) } == .interactionNotAllowed)
            #expect(status { try keychain.relabel(service: protection.rawValue, account: "me", to: "l") } == .interactionNotAllowed)
        }
        for protection in Self.classD {
            #expect(try keychain.secret(service: protection.rawValue, account: "me") == Data("secret-\(protection.rawValue)".utf8))
            try keychain.relabel(service: protection.rawValue, account: "me", to: "relabelled")
            try keychain.addPassword(service: "new", account: protection.rawValue, secret: "x", protection: protection)
        }
    }

    @Test("an unlock makes every class available; a lock removes class A and keeps C and D")
    func unlockThenLock() throws {
        let temporary = try Self.populated()
        let keychain = try temporary.reopened()
        try keychain.unlock(passcode: Data("1234".utf8))
        #expect(keychain.lockState == .unlocked)
        for protection in Protection.allCases {
            #expect(try keychain.secret(service: protection.rawValue, account: "me") == Data("secret-\(protection.rawValue)".utf8))
        }
        keychain.lock()
        #expect(keychain.lockState == .locked)
        for protection in Self.classA + [.whenPasscodeSetThisDeviceOnly] {
            #expect(status { _ = try keychain.secret(service: protection.rawValue, account: "me") } == .interactionNotAllowed)
            #expect(status { try keychain.addPassword(service: "other", account: "me", secret: "x", protection: protection) } == .interactionNotAllowed)
            #expect(status { try keychain.relabel(service: protection.rawValue, account: "me", to: "l") } == .interactionNotAllowed)
        }
        for protection in Self.classC + Self.classD {
            #expect(try keychain.secret(service: protection.rawValue, account: "me") == Data("secret-\(protection.rawValue)".utf8))
        }
        try keychain.unlock(passcode: Data("1234".utf8))
        #expect(try keychain.secret(service: "ak", account: "me") == Data("secret-ak".utf8))
    }

    @Test("adding a class A item while locked is errSecInteractionNotAllowed even when it would be a duplicate")
    func lockedDuplicateAdd() throws {
        let temporary = try Self.populated()
        temporary.keychain.lock()
        #expect(status { try temporary.addPassword(service: "ak", account: "me", secret: "again", protection: .whenUnlocked) } == .interactionNotAllowed)
        // A class D add with the primary key of a locked class A item is still found to be a duplicate.
        #expect(status { try temporary.addPassword(service: "ak", account: "me", secret: "again", protection: .always) } == .duplicateItem)
    }

    @Test("a kSecMatchLimitAll search that meets a locked item fails; one that stops before it succeeds")
    func matchLimitAllMeetsLockedItem() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.addPassword(service: "first", account: "me", secret: "d", protection: .always)
        try temporary.addPassword(service: "second", account: "me", secret: "a", protection: .whenUnlocked)
        temporary.keychain.lock()
        #expect(status { _ = try temporary.keychain.allSecrets() } == .interactionNotAllowed)
        var one = ItemRequest(itemClass: .genericPassword)
        one.returns = [.data]
        #expect(try temporary.keychain.search(one, context: TemporaryKeychain.context).first?.data == Data("d".utf8))
        #expect(status { _ = try temporary.keychain.allItems(context: TemporaryKeychain.context, includingData: false) } == .interactionNotAllowed)
        try temporary.keychain.unlock(passcode: Data("1234".utf8))
        #expect(try temporary.keychain.allSecrets() == ["d", "a"])
    }

    @Test("a locked item is deleted by its primary key, but a query that needs its attributes fails")
    func deleteWhileLocked() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.addPassword(service: "svc", account: "one", secret: "1", protection: .whenUnlocked)
        try temporary.addPassword(service: "svc", account: "two", secret: "2", protection: .whenUnlocked)
        temporary.keychain.lock()
        #expect(status { try temporary.keychain.deletePasswords(service: "svc") } == .interactionNotAllowed)
        #expect(try temporary.keychain.deletePasswords(service: "svc", account: "one") == 1)
        try temporary.keychain.unlock(passcode: Data("1234".utf8))
        #expect(try temporary.keychain.allSecrets() == ["2"])
    }

    @Test("locking drops the class A keys from memory (their buffers are freed, and so zeroed)")
    func lockFreesKeys() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        weak let classA = temporary.keychain.keyRing.keyStorageForTesting(.whenUnlocked)
        weak let classC = temporary.keychain.keyRing.keyStorageForTesting(.afterFirstUnlock)
        #expect(classA != nil)
        temporary.keychain.lock()
        #expect(classA == nil)
        #expect(classC != nil)
        #expect(temporary.keychain.keyRing.keyStorageForTesting(.whenUnlocked) == nil)
    }

    @Test("SecureBytes zeroes its memory when asked to wipe (what its deinit does)")
    func wipeZeroes() throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xA5)
        SecureBytes.wipe(buffer)
        #expect(buffer.allSatisfy { $0 == 0 })
    }

    @Test("with an auto-lock interval, class A locks after that long without use, and use postpones it")
    func autoLock() throws {
        let clock = ManualClock()
        var options = TemporaryKeychain.options
        options.clock = clock
        let temporary = try TemporaryKeychain(passcode: "1234", options: options)
        try temporary.addPassword(service: "a", account: "me", secret: "s", protection: .whenUnlocked)
        try temporary.keychain.setAutoLock(interval: 300)
        #expect(try temporary.keychain.settings().autoLockInterval == 300)
        clock.advance(by: 200)
        #expect(try temporary.secret(service: "a", account: "me") == Data("s".utf8))
        clock.advance(by: 200)
        #expect(temporary.keychain.lockState == .unlocked)
        clock.advance(by: 100)
        #expect(temporary.keychain.lockState == .locked)
        #expect(status { _ = try temporary.secret(service: "a", account: "me") } == .interactionNotAllowed)
        try temporary.keychain.unlock(passcode: Data("1234".utf8))
        #expect(try temporary.secret(service: "a", account: "me") == Data("s".utf8))
        // The setting is the keychain's: another process applies it too.
        let reopened = try temporary.reopened(options: options)
        try reopened.unlock(passcode: Data("1234".utf8))
        clock.advance(by: 301)
        #expect(reopened.lockState == .locked)
    }

    @Test("the auto-lock timer drops the keys without any further use")
    func autoLockTimer() throws {
        let temporary = try TemporaryKeychain(passcode: "1234")
        try temporary.keychain.setAutoLock(interval: 1)
        weak let classA = temporary.keychain.keyRing.keyStorageForTesting(.whenUnlocked)
        #expect(classA != nil)
        let deadline = Date().addingTimeInterval(10)
        while classA != nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(classA == nil)
    }
}
