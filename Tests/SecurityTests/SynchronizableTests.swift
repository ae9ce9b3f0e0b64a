import Foundation
import Security
import Testing

/// Every accessibility value ending in ThisDeviceOnly.
private let thisDeviceOnly = ["aku", "cku", "dku", "akpu"]

@Suite("Synchronizable items: never ThisDeviceOnly, and seen by searches that do not ask")
struct SynchronizableTests {
    @Test("Synchronizable true with a ThisDeviceOnly accessibility in an add is errSecParam", arguments: thisDeviceOnly)
    func addThisDeviceOnly(accessibility: String) throws {
        try TemporaryKeychain.run { _ in
            let item = newGenericPassword([kSecAttrSynchronizable as String: true, kSecAttrAccessible as String: accessibility])
            #expect(add(item) == errSecParam)
            #expect(count(merged(genericPassword(), [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 0)
        }
    }

    @Test("Synchronizable true with a migrating accessibility is fine", arguments: ["ak", "ck", "dk"])
    func addMigrating(accessibility: String) throws {
        try TemporaryKeychain.run { _ in
            let item = newGenericPassword([kSecAttrSynchronizable as String: true, kSecAttrAccessible as String: accessibility])
            #expect(add(item) == errSecSuccess)
        }
    }

    @Test("An update making a ThisDeviceOnly item synchronizable is errSecParam and changes nothing", arguments: thisDeviceOnly.filter { $0 != "akpu" })
    func updateToSynchronizable(accessibility: String) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrAccessible as String: accessibility])) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrSynchronizable as String: true, kSecAttrLabel as String: "x"]) == errSecParam)
            let stored = attributes(merged(genericPassword(), [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]))
            #expect(number(stored?["sync"]) == kCFBooleanFalse)
            #expect(stored?[kSecAttrLabel as String] == nil)
        }
    }

    @Test("An update giving a synchronizable item a ThisDeviceOnly accessibility is errSecParam and changes nothing", arguments: thisDeviceOnly.filter { $0 != "akpu" })
    func updateToThisDeviceOnly(accessibility: String) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrSynchronizable as String: true])) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrAccessible as String: accessibility]) == errSecParam)
            #expect(update(genericPassword(), [kSecAttrAccessible as String: accessibility, kSecAttrSynchronizable as String: true]) == errSecParam)
            let stored = attributes(merged(genericPassword(), [kSecAttrSynchronizable as String: true]))
            #expect(stored?[kSecAttrAccessible as String] as? String == "ak")
        }
    }

    @Test("One update making an item both synchronizable and ThisDeviceOnly is errSecParam and changes nothing")
    func updateBothTogether() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let changes: Query = [kSecAttrSynchronizable as String: true, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]
            #expect(update(genericPassword(), changes) == errSecParam)
            let stored = attributes(genericPassword())
            #expect(number(stored?["sync"]) == 0)
            #expect(stored?[kSecAttrAccessible as String] as? String == "ak")
        }
    }

    @Test("Searches that do not mention kSecAttrSynchronizable see both kinds of item")
    func searchesSeeBoth() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "local")) == errSecSuccess)
            #expect(add(newGenericPassword(account: "synced", [kSecAttrSynchronizable as String: true])) == errSecSuccess)
            let all: Query = [kSecClass as String: kSecClassGenericPassword]
            #expect(count(all) == 2)
            #expect(count(merged(all, [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 2)
            #expect(count(merged(all, [kSecAttrSynchronizable as String: true])) == 1)
            #expect(count(merged(all, [kSecAttrSynchronizable as String: false])) == 1)
            #expect(attributes(merged(all, [kSecAttrSynchronizable as String: true]))?[kSecAttrAccount as String] as? String == "synced")
            #expect(attributes(merged(all, [kSecAttrSynchronizable as String: kCFBooleanFalse!]))?[kSecAttrAccount as String] as? String == "local")
            #expect(secret(genericPassword(account: "synced")) == Data("secret".utf8))
        }
    }

    @Test("Updates and deletes that do not mention kSecAttrSynchronizable reach both kinds")
    func updatesAndDeletesReachBoth() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "local")) == errSecSuccess)
            #expect(add(newGenericPassword(account: "synced", [kSecAttrSynchronizable as String: true])) == errSecSuccess)
            let all: Query = [kSecClass as String: kSecClassGenericPassword]
            #expect(update(all, [kSecAttrLabel as String: "both"]) == errSecSuccess)
            #expect(count(merged(all, [kSecAttrLabel as String: "both"])) == 2)
            #expect(delete(merged(all, [kSecAttrSynchronizable as String: false])) == errSecSuccess)
            #expect(count(all) == 1)
            #expect(delete(all) == errSecSuccess)
            #expect(count(all) == 0)
        }
    }

    @Test("Adds are non-synchronizable by default")
    func addDefault() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(newGenericPassword([kSecReturnAttributes as String: true]))
            #expect(status == errSecSuccess)
            #expect(number((result as? [String: Any])?["sync"]) == kCFBooleanFalse)
            #expect(count(merged(genericPassword(), [kSecAttrSynchronizable as String: false])) == 1)
        }
    }

    @Test("kSecAttrSynchronizableAny in an add gives a non-synchronizable item")
    func addAny() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == errSecSuccess)
            #expect(count(merged(genericPassword(), [kSecAttrSynchronizable as String: false])) == 1)
            #expect(count(merged(genericPassword(), [kSecAttrSynchronizable as String: true])) == 0)
        }
    }

    @Test("Synchronizable is part of the primary key")
    func partOfPrimaryKey() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "local")) == errSecSuccess)
            #expect(add(newGenericPassword(secret: "synced", [kSecAttrSynchronizable as String: true])) == errSecSuccess)
            #expect(add(newGenericPassword([kSecAttrSynchronizable as String: true])) == errSecDuplicateItem)
            #expect(add(newGenericPassword([kSecAttrSynchronizable as String: false])) == errSecDuplicateItem)
            #expect(secret(merged(genericPassword(), [kSecAttrSynchronizable as String: true])) == Data("synced".utf8))
            #expect(secret(merged(genericPassword(), [kSecAttrSynchronizable as String: false])) == Data("local".utf8))
        }
    }

    @Test("kSecAttrSynchronizable accepts booleans, numbers and integer strings")
    func acceptedTypes() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "a", [kSecAttrSynchronizable as String: 1])) == errSecSuccess)
            #expect(add(newGenericPassword(account: "b", [kSecAttrSynchronizable as String: "1"])) == errSecSuccess)
            #expect(add(newGenericPassword(account: "c", [kSecAttrSynchronizable as String: kCFBooleanTrue!])) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: true]) == 3)
            #expect(add(newGenericPassword(account: "d", [kSecAttrSynchronizable as String: "yes"])) == errSecParam)
            #expect(add(newGenericPassword(account: "e", [kSecAttrSynchronizable as String: Data([1])])) == errSecParam)
        }
    }

    @Test("kSecAttrSynchronizableAny in attributesToUpdate changes nothing")
    func updateAny() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrSynchronizable as String: true])) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny, kSecAttrLabel as String: "x"]) == errSecSuccess)
            #expect(count(merged(genericPassword(), [kSecAttrSynchronizable as String: true])) == 1)
        }
    }
}
