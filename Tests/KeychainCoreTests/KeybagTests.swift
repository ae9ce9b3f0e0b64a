import Foundation
import KeychainCrypto
import Testing

@_spi(Testing) @testable import KeychainCore

@Suite("The keybag file")
struct KeybagTests {
    static let passcode = "keybag-passcode-Ibis-4471"

    /// The keybag of a temporary keychain, read with the device key.
    static func keybag(_ temporary: TemporaryKeychain) throws -> Keybag {
        try #require(try Keybag.load(path: temporary.keychain.keybagPath, deviceKey: temporary.keychain.deviceKey))
    }

    @Test("the keybag records its version, UUID, salt, iteration count and wrapped keys, under a MAC")
    func header() throws {
        let temporary = try TemporaryKeychain(passcode: Self.passcode)
        let bytes = try #require(FileManager.default.contents(atPath: temporary.keychain.keybagPath))
        #expect(bytes.prefix(Keybag.magic.count) == Keybag.magic)
        #expect(bytes[Keybag.magic.count] == 0 && bytes[Keybag.magic.count + 1] == 1)
        let keybag = try Self.keybag(temporary)
        #expect(keybag.uuid.count == 16)
        #expect(keybag.passcode?.salt.count == 16)
        #expect(keybag.passcode?.iterations == 1_000)
        #expect(Set(keybag.entries.map(\.keyClass)) == Set(KeybagClass.allCases))
        for entry in keybag.entries {
            #expect(entry.wrapping == (entry.keyClass.needsPasscode ? .deviceAndPasscode : .device), "\(entry.keyClass)")
        }
        let plain = try Self.keybag(try TemporaryKeychain())
        #expect(plain.passcode == nil)
        #expect(plain.entry(.whenPasscodeSetThisDeviceOnly) == nil)
        #expect(plain.entries.allSatisfy { $0.wrapping == .device })
    }

    @Test("changing any byte of the keybag is detected")
    func everyByteIsCovered() throws {
        let temporary = try TemporaryKeychain(passcode: Self.passcode)
        let bytes = try #require(FileManager.default.contents(atPath: temporary.keychain.keybagPath))
        _ = try Keybag.decode(bytes, deviceKey: temporary.keychain.deviceKey)
        for offset in bytes.indices {
            var altered = bytes
            altered[offset] ^= 0x01
            #expect(throws: KeychainError.self, "byte \(offset)") { try Keybag.decode(altered, deviceKey: temporary.keychain.deviceKey) }
        }
        #expect(throws: KeychainError.self) { try Keybag.decode(bytes.dropLast(), deviceKey: temporary.keychain.deviceKey) }
        #expect(throws: KeychainError.self) { try Keybag.decode(bytes + Data([0]), deviceKey: temporary.keychain.deviceKey) }
    }

    @Test("a keychain whose keybag was altered does not open")
    func alteredKeybagRefused() throws {
        let temporary = try TemporaryKeychain(passcode: Self.passcode)
        let path = temporary.keychain.keybagPath
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[bytes.count - 40] ^= 0x80
        try bytes.write(to: URL(fileURLWithPath: path))
        Keychain.forgetOpenInstance(path: temporary.keychain.path)
        #expect(status { _ = try Keychain.open(path: temporary.keychain.path, options: TemporaryKeychain.options) } == .invalidKeychain)
    }

    @Test("resetting the failure counter in the keybag file is detected")
    func counterCannotBeReset() throws {
        let temporary = try TemporaryKeychain(passcode: Self.passcode)
        for attempt in 1...3 { _ = status { try temporary.keychain.unlock(passcode: Data("bad-\(attempt)".utf8)) } }
        #expect(try Self.keybag(temporary).attempts.failures == 3)
        var bytes = try #require(FileManager.default.contents(atPath: temporary.keychain.keybagPath))
        let failuresOffset = Keybag.magic.count + 2 + 16 + 1 + 1 + 4 + 16
        #expect(bytes[failuresOffset + 3] == 3)
        bytes[failuresOffset + 3] = 0
        #expect(throws: KeychainError.self) { try Keybag.decode(bytes, deviceKey: temporary.keychain.deviceKey) }
    }

    @Test("neither the keybag nor the database holds a key, the passcode or a secret in the clear")
    func noKeyOrSecretInTheClear() throws {
        let temporary = try TemporaryKeychain(passcode: Self.passcode)
        let secret = "SECRET-canary-Puffin-9312"
        for protection in Protection.allCases {
            try temporary.addPassword(service: "svc-canary-\(protection.rawValue)", account: "acct-canary", secret: secret + protection.rawValue, protection: protection)
        }
        let keychain = temporary.keychain
        let keybag = try Self.keybag(temporary)
        let keys = try keybag.unwrap(
            KeybagClass.allCases,
            wrapping: keybag.wrappingKeys(deviceKey: keychain.deviceKey, passcode: SecureBytes(copying: Data(Self.passcode.utf8))))
        #expect(keys.count == KeybagClass.allCases.count)
        var forbidden: [(String, Data)] = [
            ("device key", keychain.deviceKey.bytes.withUnsafeBytes { Data($0) }),
            ("passcode", Data(Self.passcode.utf8)),
            ("secret", Data(secret.utf8)),
            ("service", Data("svc-canary".utf8)),
            ("account", Data("acct-canary".utf8)),
        ]
        for (keyClass, key) in keys {
            forbidden.append(("class key \(keyClass)", key.bytes.withUnsafeBytes { Data($0) }))
            if keyClass == .index {
                let index = try IndexKeys(indexKey: key)
                forbidden.append(("token key", index.tokens.bytes.withUnsafeBytes { Data($0) }))
                forbidden.append(("group key", index.groupNames.bytes.withUnsafeBytes { Data($0) }))
            } else {
                let derived = try ClassKeys(classKey: key)
                forbidden.append(("metadata key \(keyClass)", derived.metadata.bytes.withUnsafeBytes { Data($0) }))
                forbidden.append(("wrapping key \(keyClass)", derived.itemKeyWrapping.bytes.withUnsafeBytes { Data($0) }))
            }
        }
        let files = try temporary.files().filter { $0.name != FileDeviceKey.fileName }
        #expect(files.map(\.name).contains("test.keychain-db.keybag"))
        #expect(files.map(\.name).contains("test.keychain-db"))
        for file in files {
            for (name, bytes) in forbidden {
                #expect(file.contents.range(of: bytes) == nil, "\(name) in \(file.name)")
            }
        }
        // Control: the scan does find what is there.
        let deviceFile = try #require(try temporary.files().first { $0.name == FileDeviceKey.fileName })
        #expect(deviceFile.contents.range(of: forbidden[0].1) != nil)
    }
}
