import Foundation
import Security
import Testing

/// A flag combination for `SecAccessControlCreateWithFlags`, named for the test report.
struct FlagCase: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let flags: SecAccessControlCreateFlags

    static let valid: [FlagCase] = [
        .init(testDescription: "no flags", flags: []),
        .init(testDescription: ".userPresence", flags: .userPresence),
        .init(testDescription: ".biometryAny", flags: .biometryAny),
        .init(testDescription: ".touchIDAny", flags: .touchIDAny),
        .init(testDescription: ".biometryCurrentSet", flags: .biometryCurrentSet),
        .init(testDescription: ".touchIDCurrentSet", flags: .touchIDCurrentSet),
        .init(testDescription: ".devicePasscode", flags: .devicePasscode),
        .init(testDescription: ".watch", flags: .watch),
        .init(testDescription: ".companion", flags: .companion),
        .init(testDescription: ".privateKeyUsage", flags: .privateKeyUsage),
        .init(testDescription: ".applicationPassword", flags: .applicationPassword),
        .init(testDescription: ".or alone", flags: .or),
        .init(testDescription: ".and alone", flags: .and),
        .init(testDescription: "[.biometryAny, .or, .devicePasscode]", flags: [.biometryAny, .or, .devicePasscode]),
        .init(testDescription: "[.biometryCurrentSet, .or, .devicePasscode]", flags: [.biometryCurrentSet, .or, .devicePasscode]),
        .init(testDescription: "[.biometryCurrentSet, .and, .applicationPassword]", flags: [.biometryCurrentSet, .and, .applicationPassword]),
        .init(testDescription: "[.biometryAny, .or, .watch]", flags: [.biometryAny, .or, .watch]),
        .init(testDescription: "[.privateKeyUsage, .userPresence]", flags: [.privateKeyUsage, .userPresence]),
        .init(testDescription: "[.userPresence, .applicationPassword]", flags: [.userPresence, .applicationPassword]),
        .init(testDescription: "[.privateKeyUsage, .biometryCurrentSet]", flags: [.privateKeyUsage, .biometryCurrentSet]),
        .init(testDescription: "[.devicePasscode, .watch] (implicit and)", flags: [.devicePasscode, .watch]),
    ]

    static let invalid: [FlagCase] = [
        .init(testDescription: "[.or, .and]", flags: [.or, .and]),
        .init(testDescription: "[.biometryAny, .or, .and, .devicePasscode]", flags: [.biometryAny, .or, .and, .devicePasscode]),
        .init(testDescription: "[.biometryAny, .biometryCurrentSet]", flags: [.biometryAny, .biometryCurrentSet]),
        .init(testDescription: "[.biometryAny, .or, .biometryCurrentSet]", flags: [.biometryAny, .or, .biometryCurrentSet]),
        .init(testDescription: "[.userPresence, .devicePasscode]", flags: [.userPresence, .devicePasscode]),
        .init(testDescription: "[.userPresence, .biometryAny]", flags: [.userPresence, .biometryAny]),
        .init(testDescription: "[.userPresence, .or, .biometryCurrentSet]", flags: [.userPresence, .or, .biometryCurrentSet]),
        .init(testDescription: "[.userPresence, .watch]", flags: [.userPresence, .watch]),
        .init(testDescription: "unknown bit 1 << 8", flags: SecAccessControlCreateFlags(rawValue: 1 << 8)),
    ]
}

private let protections: [String] = ["ak", "ck", "dk", "aku", "cku", "dku", "akpu"]

/// Creates an access control, returning the error too.
private func create(_ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags) -> (SecAccessControl?, CFError?) {
    var error: Unmanaged<CFError>?
    let control = SecAccessControlCreateWithFlags(nil, protection, flags, &error)
    return (control, error?.takeRetainedValue())
}

@Suite("SecAccessControl")
struct AccessControlTests {
    @Test("Every flag and accepted combination creates an access control", arguments: FlagCase.valid)
    func validFlags(flags: FlagCase) throws {
        let (control, error) = create(kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags.flags)
        #expect(control != nil)
        #expect(error == nil)
    }

    @Test("Every protection value creates an access control", arguments: protections)
    func validProtections(protection: String) throws {
        let (control, error) = create(protection as CFString, .userPresence)
        #expect(control != nil)
        #expect(error == nil)
    }

    @Test("Invalid combinations give nil and an OSStatus-domain CFError with code -50", arguments: FlagCase.invalid)
    func invalidFlags(flags: FlagCase) throws {
        let (control, error) = create(kSecAttrAccessibleWhenUnlocked, flags.flags)
        #expect(control == nil)
        let failure = try #require(error)
        #expect(failure.domain == kCFErrorDomainOSStatus as String)
        #expect(failure.code == -50)
        #expect(failure.code == Int(errSecParam))
    }

    @Test(
        "An invalid protection gives nil and errSecParam",
        arguments: [("unknown string", "bogus" as any Sendable), ("empty string", ""), ("number", 1), ("data", Data("ak".utf8))])
    func invalidProtection(name: String, protection: any Sendable) throws {
        let (control, error) = create(protection as AnyObject, [])
        #expect(control == nil)
        #expect(error?.domain == kCFErrorDomainOSStatus as String)
        #expect(error?.code == -50)
    }

    @Test("A nil error pointer is allowed when creation fails")
    func nilErrorPointer() {
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.or, .and], nil) == nil)
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, .devicePasscode, nil) != nil)
    }

    @Test("Access controls compare and hash by value")
    func equalityByValue() throws {
        let first = try #require(create(kSecAttrAccessibleWhenUnlocked, .biometryAny).0)
        let second = try #require(create(kSecAttrAccessibleWhenUnlocked, .biometryAny).0)
        let other = try #require(create(kSecAttrAccessibleWhenUnlocked, .biometryCurrentSet).0)
        let otherProtection = try #require(create(kSecAttrAccessibleAfterFirstUnlock, .biometryAny).0)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != other)
        #expect(first != otherProtection)
        let dictionary: [String: AnyHashable] = [kSecAttrAccessControl as String: first]
        #expect(dictionary[kSecAttrAccessControl as String] == AnyHashable(second))
    }

    @Test("An item keeps its access control: returned as accc, equal by value, and pdmn from its protection")
    func storedAndReturned() throws {
        try TemporaryKeychain.run { _ in
            let control = try #require(create(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [.biometryCurrentSet, .or, .devicePasscode]).0)
            #expect(add(newGenericPassword([kSecAttrAccessControl as String: control])) == errSecSuccess)
            let returned = try #require(attributes(genericPassword()))
            let stored = try #require(returned[kSecAttrAccessControl as String] as? SecAccessControl)
            #expect(stored == control)
            #expect(returned[kSecAttrAccessible as String] as? String == "cku")
            let plain = try #require(create(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, []).0)
            #expect(stored != plain)
        }
    }

    @Test("SecItemAdd returns the access control it stored")
    func addReturnsAccessControl() throws {
        try TemporaryKeychain.run { _ in
            let control = try #require(create(kSecAttrAccessibleWhenUnlocked, .userPresence).0)
            let (status, result) = addReturning(newGenericPassword([
                kSecAttrAccessControl as String: control, kSecReturnAttributes as String: true,
            ]))
            #expect(status == errSecSuccess)
            #expect((result as? [String: Any])?[kSecAttrAccessControl as String] as? SecAccessControl == control)
        }
    }

    @Test("Searching with the stored access control finds the item (the access control is not a filter)")
    func searchWithAccessControl() throws {
        try TemporaryKeychain.run { _ in
            let control = try #require(create(kSecAttrAccessibleWhenUnlocked, .devicePasscode).0)
            #expect(add(newGenericPassword([kSecAttrAccessControl as String: control])) == errSecSuccess)
            #expect(count(merged(genericPassword(), [kSecAttrAccessControl as String: control])) == 1)
            #expect(delete(merged(genericPassword(), [kSecAttrAccessControl as String: control])) == errSecSuccess)
        }
    }

    @Test("An update can replace the access control")
    func updateAccessControl() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let control = try #require(create(kSecAttrAccessibleAfterFirstUnlock, .biometryAny).0)
            #expect(update(genericPassword(), [kSecAttrAccessControl as String: control]) == errSecSuccess)
            let returned = try #require(attributes(genericPassword()))
            #expect(returned[kSecAttrAccessControl as String] as? SecAccessControl == control)
            #expect(returned[kSecAttrAccessible as String] as? String == "ck")
        }
    }

    @Test("An access control with kSecAttrSynchronizable true is errSecParam, in add and update")
    func synchronizable() throws {
        try TemporaryKeychain.run { _ in
            let control = try #require(create(kSecAttrAccessibleWhenUnlocked, .userPresence).0)
            #expect(add(newGenericPassword([kSecAttrAccessControl as String: control, kSecAttrSynchronizable as String: true])) == errSecParam)
            #expect(count(merged(genericPassword(), [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 0)
            #expect(add(newGenericPassword([kSecAttrSynchronizable as String: true])) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrAccessControl as String: control]) == errSecParam)
            #expect(attributes(genericPassword())?[kSecAttrAccessControl as String] as? SecAccessControl != control)
        }
    }

    @Test("kSecAttrAccessible together with kSecAttrAccessControl is errSecParam", arguments: ["ak", "cku"])
    func accessibleAndAccessControl(protection: String) throws {
        try TemporaryKeychain.run { _ in
            let control = try #require(create(protection as CFString, .devicePasscode).0)
            let item = newGenericPassword([kSecAttrAccessControl as String: control, kSecAttrAccessible as String: protection])
            #expect(add(item) == errSecParam)
            #expect(count(genericPassword()) == 0)
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrAccessControl as String: control, kSecAttrAccessible as String: protection]) == errSecParam)
        }
    }

    @Test("kSecAttrAccessControl that is not a SecAccessControl is errSecParam")
    func wrongType() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrAccessControl as String: "ak"])) == errSecParam)
            #expect(add(newGenericPassword([kSecAttrAccessControl as String: Data()])) == errSecParam)
            #expect(count(genericPassword()) == 0)
        }
    }

    @Test("WhenPasscodeSetThisDeviceOnly is errSecAuthFailed while no passcode exists, however it is given")
    func passcodeSetWithoutPasscode() throws {
        try TemporaryKeychain.run { _ in
            let control = try #require(create(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .userPresence).0)
            #expect(add(newGenericPassword([kSecAttrAccessControl as String: control])) == errSecAuthFailed)
            #expect(add(newGenericPassword([kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly])) == errSecAuthFailed)
            #expect(count(genericPassword()) == 0)
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly]) == errSecAuthFailed)
            #expect(attributes(genericPassword())?[kSecAttrAccessible as String] as? String == "ak")
        }
    }

    @Test("Flags keep Apple's bit values")
    func flagBits() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1 << 0)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 1 << 1)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 1 << 3)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 1 << 4)
        #expect(SecAccessControlCreateFlags.watch.rawValue == 1 << 5)
        #expect(SecAccessControlCreateFlags.or.rawValue == 1 << 14)
        #expect(SecAccessControlCreateFlags.and.rawValue == 1 << 15)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
    }
}
