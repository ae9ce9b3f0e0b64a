import Foundation
import Security
@_spi(Testing) import Security
import Testing

/// Data Protection as a client sees it through `import Security`: accessibility classes, the
/// passcode, and the lock state (driven through the test hooks a device's lock screen stands for).
@Suite("Data Protection through the Security API")
struct DataProtectionTests {
    static let passcode = Data("2580".utf8)

    static func item(_ service: String, _ accessible: CFString) -> Query {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "me", kSecAttrAccessible as String: accessible,
        ]
    }

    static func lookup(_ service: String) -> Query {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: "me"]
    }

    static var classA: [CFString] { [kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly] }
    static var classC: [CFString] { [kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly] }
    static var classD: [CFString] { [kSecAttrAccessibleAlways, kSecAttrAccessibleAlwaysThisDeviceOnly] }

    /// Sets a passcode on a fresh default keychain and adds one item per accessibility (service = its value).
    static func populate() {
        #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
        #expect(SecDataProtectionTesting.setPasscode(passcode, old: nil) == errSecSuccess)
        for accessible in classA + classC + classD {
            #expect(add(merged(item(accessible as String, accessible), [kSecValueData as String: Data("secret-\(accessible)".utf8)])) == errSecSuccess)
        }
    }

    @Test("kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: errSecAuthFailed without a passcode, stored with one")
    func passcodeOnlyNeedsPasscode() throws {
        try TemporaryKeychain.run { _ in
            #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
            let akpu = merged(Self.item("p", kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly), [kSecValueData as String: Data("x".utf8)])
            #expect(add(akpu) == errSecAuthFailed)
            #expect(SecDataProtectionTesting.setPasscode(Self.passcode, old: nil) == errSecSuccess)
            #expect(add(akpu) == errSecSuccess)
            #expect(secret(Self.lookup("p")) == Data("x".utf8))
        }
    }

    @Test("while locked, add, copy and update of class A items return errSecInteractionNotAllowed (-25308)")
    func lockedClassA() throws {
        try TemporaryKeychain.run { _ in
            Self.populate()
            #expect(SecDataProtectionTesting.lock() == errSecSuccess)
            for accessible in Self.classA {
                let service = accessible as String
                #expect(copyMatching(merged(Self.lookup(service), [kSecReturnData as String: true])).status == errSecInteractionNotAllowed)
                #expect(copyMatching(merged(Self.lookup(service), [kSecReturnAttributes as String: true])).status == -25308)
                #expect(update(Self.lookup(service), [kSecAttrLabel as String: "new"]) == errSecInteractionNotAllowed)
                #expect(add(merged(Self.item("other-" + service, accessible), [kSecValueData as String: Data()])) == errSecInteractionNotAllowed)
                // Even when the add would be a duplicate: encryption comes first.
                #expect(add(merged(Self.item(service, accessible), [kSecValueData as String: Data()])) == errSecInteractionNotAllowed)
            }
            for accessible in Self.classC + Self.classD {
                #expect(secret(Self.lookup(accessible as String)) == Data("secret-\(accessible)".utf8))
            }
            #expect(SecDataProtectionTesting.unlock(Self.passcode) == errSecSuccess)
            for accessible in Self.classA {
                #expect(secret(Self.lookup(accessible as String)) == Data("secret-\(accessible)".utf8))
            }
        }
    }

    @Test("a kSecMatchLimitAll search that meets a locked item fails with errSecInteractionNotAllowed")
    func matchLimitAllWhileLocked() throws {
        try TemporaryKeychain.run { _ in
            Self.populate()
            #expect(SecDataProtectionTesting.lock() == errSecSuccess)
            let all: Query = [
                kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: true,
            ]
            #expect(copyMatching(all).status == errSecInteractionNotAllowed)
            #expect(SecDataProtectionTesting.unlock(Self.passcode) == errSecSuccess)
            #expect((copyMatching(all).result as? [Any])?.count == 7)
        }
    }

    @Test("a new process with a passcode starts before the first unlock: AfterFirstUnlock items are unavailable too")
    func beforeFirstUnlock() throws {
        try TemporaryKeychain.run { _ in
            Self.populate()
            SecDataProtectionTesting.restart()
            #expect(SecDataProtectionTesting.useFastKeyDerivation() == errSecSuccess)
            for accessible in Self.classA + Self.classC {
                #expect(copyMatching(merged(Self.lookup(accessible as String), [kSecReturnData as String: true])).status == errSecInteractionNotAllowed)
            }
            for accessible in Self.classD {
                #expect(secret(Self.lookup(accessible as String)) == Data("secret-\(accessible)".utf8))
            }
            #expect(SecDataProtectionTesting.unlock(Data("wrong".utf8)) == errSecAuthFailed)
            #expect(SecDataProtectionTesting.unlock(Self.passcode) == errSecSuccess)
            #expect(SecDataProtectionTesting.lock() == errSecSuccess)
            for accessible in Self.classC {
                #expect(secret(Self.lookup(accessible as String)) == Data("secret-\(accessible)".utf8))
            }
        }
    }

    @Test("SecItemDelete by primary key works while locked")
    func deleteWhileLocked() throws {
        try TemporaryKeychain.run { _ in
            Self.populate()
            #expect(SecDataProtectionTesting.lock() == errSecSuccess)
            #expect(delete(Self.lookup(kSecAttrAccessibleWhenUnlocked as String)) == errSecSuccess)
            #expect(SecDataProtectionTesting.unlock(Self.passcode) == errSecSuccess)
            #expect(copyMatching(Self.lookup(kSecAttrAccessibleWhenUnlocked as String)).status == errSecItemNotFound)
        }
    }

    @Test("removing the passcode deletes the WhenPasscodeSetThisDeviceOnly items and keeps the others")
    func removingPasscode() throws {
        try TemporaryKeychain.run { _ in
            Self.populate()
            #expect(SecDataProtectionTesting.setPasscode(nil, old: Data("wrong".utf8)) == errSecAuthFailed)
            #expect(SecDataProtectionTesting.setPasscode(nil, old: Self.passcode) == errSecSuccess)
            #expect(copyMatching(Self.lookup(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String)).status == errSecItemNotFound)
            let akpu = merged(Self.item("again", kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly), [kSecValueData as String: Data()])
            #expect(add(akpu) == errSecAuthFailed)
            for accessible in Self.classA.dropLast() + Self.classC + Self.classD {
                #expect(secret(Self.lookup(accessible as String)) == Data("secret-\(accessible)".utf8))
            }
            // Without a passcode nothing locks.
            #expect(SecDataProtectionTesting.lock() == errSecSuccess)
            #expect(secret(Self.lookup(kSecAttrAccessibleWhenUnlocked as String)) != nil)
        }
    }
}
