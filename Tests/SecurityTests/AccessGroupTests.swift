import Foundation
import Security
import Testing

private let appEntitlements = TestEntitlements.groups(
    applicationIdentifier: "TEAM123456.com.example.app",
    keychainAccessGroups: ["TEAM123456.com.example.shared", "TEAM123456.com.example.app"])

@Suite("Access groups from the process's entitlements")
struct AccessGroupTests {
    @Test("Without an entitlements file every item is in the group \"default\"")
    func defaultGroup() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrAccessGroup as String] as? String == "default")
            #expect(add(newGenericPassword(account: "x", [kSecAttrAccessGroup as String: "default"])) == errSecSuccess)
            #expect(add(newGenericPassword(account: "y", [kSecAttrAccessGroup as String: "other"])) == errSecMissingEntitlement)
        }
    }

    @Test("An add without kSecAttrAccessGroup uses the first entitlement group")
    func firstGroupIsDefault() throws {
        try TemporaryKeychain.run(entitlements: appEntitlements) { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrAccessGroup as String] as? String == "TEAM123456.com.example.shared")
        }
    }

    @Test("The application identifier is a group after the keychain-access-groups")
    func applicationIdentifierIsAGroup() throws {
        try TemporaryKeychain.run(entitlements: .groups(applicationIdentifier: "TEAM123456.com.example.app", keychainAccessGroups: [])) { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrAccessGroup as String] as? String == "TEAM123456.com.example.app")
        }
    }

    @Test("Searches without kSecAttrAccessGroup cover all of the process's groups; with one, only that group")
    func searchesCoverAllGroups() throws {
        try TemporaryKeychain.run(entitlements: appEntitlements) { _ in
            #expect(add(newGenericPassword(secret: "shared")) == errSecSuccess)
            #expect(add(newGenericPassword(secret: "app", [kSecAttrAccessGroup as String: "TEAM123456.com.example.app"])) == errSecSuccess)
            #expect(count(genericPassword()) == 2)
            let appOnly = merged(genericPassword(), [kSecAttrAccessGroup as String: "TEAM123456.com.example.app"])
            #expect(secret(appOnly) == Data("app".utf8))
            #expect(update(appOnly, [kSecAttrLabel as String: "app"]) == errSecSuccess)
            #expect(count(merged(genericPassword(), [kSecAttrLabel as String: "app"])) == 1)
            #expect(delete(appOnly) == errSecSuccess)
            #expect(secret(genericPassword()) == Data("shared".utf8))
        }
    }

    @Test("An explicit group the process is not entitled to is errSecMissingEntitlement for every operation")
    func unentitledGroup() throws {
        try TemporaryKeychain.run(entitlements: appEntitlements) { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let foreign: Query = [kSecAttrAccessGroup as String: "OTHERTEAM.com.example.foreign"]
            #expect(add(newGenericPassword(account: "x", foreign)) == errSecMissingEntitlement)
            #expect(copyMatching(merged(genericPassword(), foreign)).status == errSecMissingEntitlement)
            #expect(update(merged(genericPassword(), foreign), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
            #expect(update(genericPassword(), foreign) == errSecMissingEntitlement)
            #expect(delete(merged(genericPassword(), foreign)) == errSecMissingEntitlement)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
            #expect(attributes(genericPassword())?[kSecAttrAccessGroup as String] as? String == "TEAM123456.com.example.shared")
        }
    }

    @Test("An update can move an item to another entitled group")
    func moveBetweenGroups() throws {
        try TemporaryKeychain.run(entitlements: appEntitlements) { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrAccessGroup as String: "TEAM123456.com.example.app"]) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrAccessGroup as String] as? String == "TEAM123456.com.example.app")
        }
    }

    @Test("$(AppIdentifierPrefix) in an entitlement group expands to the team prefix")
    func appIdentifierPrefixExpansion() throws {
        let entitlements = TestEntitlements.groups(
            applicationIdentifier: "ABCDE12345.com.example.app",
            keychainAccessGroups: ["$(AppIdentifierPrefix)com.example.shared"])
        try TemporaryKeychain.run(entitlements: entitlements) { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrAccessGroup as String] as? String == "ABCDE12345.com.example.shared")
            #expect(count(merged(genericPassword(), [kSecAttrAccessGroup as String: "ABCDE12345.com.example.shared"])) == 1)
            #expect(add(newGenericPassword(account: "x", [kSecAttrAccessGroup as String: "$(AppIdentifierPrefix)com.example.shared"])) == errSecMissingEntitlement)
        }
    }

    @Test("An entitlements file with no groups is errSecMissingEntitlement for every operation")
    func noGroups() throws {
        try TemporaryKeychain.run(entitlements: .groups(applicationIdentifier: nil, keychainAccessGroups: [])) { _ in
            #expect(add(newGenericPassword()) == errSecMissingEntitlement)
            #expect(copyMatching(genericPassword()).status == errSecMissingEntitlement)
            #expect(update(genericPassword(), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
            #expect(delete(genericPassword()) == errSecMissingEntitlement)
        }
    }

    // In-process entitlements only: through keychaind a program declares nothing itself, and the
    // owner's registration of such a file is refused (EntitlementsCommandTests).
    @Test("An unreadable entitlements file never falls back to the default group", .enabled(if: !TestMode.throughDaemon))
    func unreadableEntitlements() throws {
        try TemporaryKeychain.run(entitlements: .propertyList("this is not a property list <dict>")) { _ in
            #expect(add(newGenericPassword()) == errSecMissingEntitlement)
            #expect(copyMatching(genericPassword()).status == errSecMissingEntitlement)
        }
    }

    @Test("Items of groups the process lacks are invisible; their primary keys do not collide")
    func otherProcessesItemsAreInvisible() throws {
        try TemporaryKeychain.run(entitlements: .accessGroups("com.example.one")) { environment in
            #expect(add(newGenericPassword(secret: "one")) == errSecSuccess)
            try environment.useEntitlements(.accessGroups("com.example.two"))
            #expect(copyMatching(genericPassword()).status == errSecItemNotFound)
            #expect(delete(genericPassword()) == errSecItemNotFound)
            #expect(update(genericPassword(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
            #expect(add(newGenericPassword(secret: "two")) == errSecSuccess)
            #expect(secret(genericPassword()) == Data("two".utf8))
            try environment.useEntitlements(.accessGroups("com.example.one", "com.example.two"))
            #expect(count(genericPassword()) == 2)
            try environment.useEntitlements(.accessGroups("com.example.one"))
            #expect(secret(genericPassword()) == Data("one".utf8))
            #expect(attributes(genericPassword())?[kSecAttrLabel as String] == nil)
        }
    }

    @Test("A \"*\" group lets searches reach every group")
    func wildcardGroup() throws {
        try TemporaryKeychain.run(entitlements: .accessGroups("com.example.one")) { environment in
            #expect(add(newGenericPassword()) == errSecSuccess)
            try environment.useEntitlements(.accessGroups("com.example.two"))
            #expect(add(newGenericPassword()) == errSecSuccess)
            try environment.useEntitlements(.accessGroups("*"))
            #expect(count(genericPassword()) == 2)
            #expect(count(merged(genericPassword(), [kSecAttrAccessGroup as String: "com.example.one"])) == 1)
        }
    }

    @Test("The entitlements are read on every call")
    func entitlementsAreReadOnEveryCall() throws {
        try TemporaryKeychain.run { environment in
            #expect(add(newGenericPassword()) == errSecSuccess)
            try environment.useEntitlements(.accessGroups("com.example.other"))
            #expect(copyMatching(genericPassword()).status == errSecItemNotFound)
            try environment.useEntitlements(.none)
            #expect(copyMatching(genericPassword()).status == errSecSuccess)
        }
    }
}
