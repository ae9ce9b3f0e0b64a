import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore

@Suite("Backup and restore")
struct BackupTests {
    static let password = Data("backup-password-Marten-5521".utf8)
    static let account = "account-canary-Wombat"

    /// A passcode keychain with one item of every class (service = pdmn, secret = "secret-<pdmn>").
    static func source() throws -> TemporaryKeychain {
        let temporary = try TemporaryKeychain(passcode: "1234")
        for protection in Protection.allCases {
            try temporary.addPassword(
                service: protection.rawValue, account: Self.account, secret: "secret-\(protection.rawValue)",
                label: "label-\(protection.rawValue)", protection: protection)
        }
        return temporary
    }

    static func backupPath(_ temporary: TemporaryKeychain) -> String { temporary.directory + "/keychain.backup" }

    /// Every generic password as service → (secret, label, creation date, persistent reference).
    static func contents(_ keychain: Keychain) throws -> [String: [String]] {
        var request = ItemRequest(itemClass: .genericPassword)
        request.returns = [.attributes, .data, .persistentReference]
        request.matchLimit = .all
        var result: [String: [String]] = [:]
        for item in try keychain.search(request, context: TemporaryKeychain.context) {
            let attributes = item.attributes ?? [:]
            result[attributes["svce"]?.stringValue ?? "?"] = [
                String(decoding: item.data ?? Data(), as: UTF8.self), attributes["labl"]?.stringValue ?? "",
                "\(attributes["cdat"].map { "\($0)" } ?? "")", (item.persistentReference ?? Data()).hex,
                attributes["pdmn"]?.stringValue ?? "",
            ]
        }
        return result
    }

    @Test("a backup holds every item but the passcode-only ones, and no secret in the clear")
    func backupContents() throws {
        let source = try Self.source()
        let summary = try source.keychain.backup(to: Self.backupPath(source), password: Self.password)
        #expect(summary == BackupSummary(itemCount: 6, passcodeOnlyItemsLeftOut: 1))
        let bytes = try #require(FileManager.default.contents(atPath: Self.backupPath(source)))
        #expect(bytes.prefix(BackupFile.magic.count) == BackupFile.magic)
        for text in ["secret-", "label-", Self.account, String(decoding: Self.password, as: UTF8.self)] {
            #expect(bytes.range(of: Data(text.utf8)) == nil, "\(text)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: Self.backupPath(source))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("restoring on the same device brings back every backed-up item with its attributes and reference")
    func sameDevice() throws {
        let source = try Self.source()
        try source.keychain.backup(to: Self.backupPath(source), password: Self.password)
        let original = try Self.contents(source.keychain)
        let target = try Keychain.create(path: source.directory + "/restored.keychain-db", passcode: Data("other".utf8), options: TemporaryKeychain.options)
        let summary = try target.restore(from: Self.backupPath(source), password: Self.password)
        #expect(summary == RestoreSummary(restoredCount: 6, thisDeviceOnlyItemsLeftOut: 0, isSameDevice: true))
        var expected = original
        expected.removeValue(forKey: "akpu")
        #expect(try Self.contents(target) == expected)
    }

    @Test("restoring on another device leaves the ThisDeviceOnly items out and says how many")
    func anotherDevice() throws {
        let source = try Self.source()
        try source.keychain.backup(to: Self.backupPath(source), password: Self.password)
        let original = try Self.contents(source.keychain)
        let elsewhere = try TemporaryKeychain()
        let summary = try elsewhere.keychain.restore(from: Self.backupPath(source), password: Self.password)
        #expect(summary == RestoreSummary(restoredCount: 3, thisDeviceOnlyItemsLeftOut: 3, isSameDevice: false))
        #expect(try Self.contents(elsewhere.keychain) == original.filter { ["ak", "ck", "dk"].contains($0.key) })
    }

    @Test("a restore replaces what the keychain held")
    func restoreReplaces() throws {
        let source = try Self.source()
        try source.keychain.backup(to: Self.backupPath(source), password: Self.password)
        let target = try TemporaryKeychain()
        try target.addPassword(service: "ak", account: Self.account, secret: "local version")
        try target.addPassword(service: "local-only", account: "me", secret: "local")
        try target.keychain.restore(from: Self.backupPath(source), password: Self.password)
        #expect(try target.secret(service: "ak", account: Self.account) == Data("secret-ak".utf8))
        #expect(status { _ = try target.secret(service: "local-only", account: "me") } == .itemNotFound)
    }

    @Test("a wrong password is errSecAuthFailed and changes nothing")
    func wrongPassword() throws {
        let source = try Self.source()
        try source.keychain.backup(to: Self.backupPath(source), password: Self.password)
        let target = try TemporaryKeychain()
        try target.addPassword(service: "kept", account: "me", secret: "kept")
        #expect(status { try target.keychain.restore(from: Self.backupPath(source), password: Data("wrong".utf8)) } == .authFailed)
        #expect(try target.secret(service: "kept", account: "me") == Data("kept".utf8))
        #expect(status { try target.keychain.restore(from: Self.backupPath(source), password: Data()) } == .passphraseRequired)
        #expect(status { try source.keychain.backup(to: Self.backupPath(source), password: Data()) } == .passphraseRequired)
    }

    @Test("an altered, truncated or extended backup is rejected and changes nothing")
    func tamperedBackup() throws {
        let source = try Self.source()
        let path = Self.backupPath(source)
        try source.keychain.backup(to: path, password: Self.password)
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let target = try TemporaryKeychain()
        try target.addPassword(service: "kept", account: "me", secret: "kept")
        var variants: [(String, Data)] = [("truncated", bytes.dropLast(5)), ("extended", bytes + Data([1, 2, 3]))]
        for offset in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            var altered = bytes
            altered[offset] ^= 0x04
            variants.append(("byte \(offset)", altered))
        }
        for (name, variant) in variants {
            try variant.write(to: URL(fileURLWithPath: path))
            let code = status { try target.keychain.restore(from: path, password: Self.password) }
            #expect(code == .decode || code == .authFailed, "\(name) of \(bytes.count): \(String(describing: code))")
        }
        #expect(try target.keychain.allSecrets() == ["kept"])
    }

    @Test("an application-password item is backed up still sealed under its password: restored here or elsewhere, its secret opens with that password only (a wrong one is errSecAuthFailed)")
    func applicationPasswordItem() throws {
        let source = try TemporaryKeychain(passcode: "1234")
        var read = try ApplicationPasswordTests.add(source.keychain, password: "hunter2-Quokka")
        let path = Self.backupPath(source)
        let summary = try source.keychain.backup(to: path, password: Self.password)
        #expect(summary == BackupSummary(itemCount: 1, passcodeOnlyItemsLeftOut: 0))
        let bytes = try #require(FileManager.default.contents(atPath: path))
        for text in ["sealed twice", "hunter2-Quokka"] {
            #expect(bytes.range(of: Data(text.utf8)) == nil, "\(text)")
        }
        let here = try Keychain.create(path: source.directory + "/restored.keychain-db", passcode: Data("other".utf8), options: TemporaryKeychain.options)
        let elsewhere = try TemporaryKeychain()
        #expect(try here.restore(from: path, password: Self.password).restoredCount == 1)
        #expect(try elsewhere.keychain.restore(from: path, password: Self.password).restoredCount == 1)
        for (name, keychain) in [("here", here), ("elsewhere", elsewhere.keychain)] {
            var attributes = read
            attributes.returns = .attributes
            #expect(status { _ = try keychain.search(attributes, context: ApplicationPasswordTests.context) } == nil, "\(name)")
            read.authentication.applicationPassword = nil
            #expect(status { _ = try keychain.search(read, context: ApplicationPasswordTests.context) } == .authenticationNeeded, "\(name)")
            read.authentication.applicationPassword = Data("hunter3-Quokka".utf8)
            #expect(status { _ = try keychain.search(read, context: ApplicationPasswordTests.context) } == .authFailed, "\(name)")
            read.authentication.applicationPassword = Data("hunter2-Quokka".utf8)
            #expect((try? keychain.search(read, context: ApplicationPasswordTests.context).first?.data) == Data("sealed twice".utf8), "\(name)")
            // The restored row takes further writes: its attributes change, its secret still opens.
            var changes = ItemChanges()
            changes.attributes = [.label: .string("restored")]
            var query = read
            query.returns = []
            #expect(status { try keychain.update(query, changes: changes, context: ApplicationPasswordTests.context) } == nil, "\(name)")
            #expect((try? keychain.search(read, context: ApplicationPasswordTests.context).first?.data) == Data("sealed twice".utf8), "\(name)")
        }
    }

    @Test("backing up or restoring a locked keychain is errSecInteractionNotAllowed")
    func lockedKeychain() throws {
        let source = try Self.source()
        source.keychain.lock()
        #expect(status { try source.keychain.backup(to: Self.backupPath(source), password: Self.password) } == .interactionNotAllowed)
        try source.keychain.unlock(passcode: Data("1234".utf8))
        try source.keychain.backup(to: Self.backupPath(source), password: Self.password)
        let target = try TemporaryKeychain(passcode: "5678")
        target.keychain.lock()
        #expect(status { try target.keychain.restore(from: Self.backupPath(source), password: Self.password) } == .interactionNotAllowed)
    }
}
