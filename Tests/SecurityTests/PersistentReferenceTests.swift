import Foundation
import Security
import Testing

/// Adds the default generic password and returns its persistent reference.
private func addWithReference(_ extra: Query = [:]) throws -> Data {
    let (status, result) = addReturning(newGenericPassword(secret: "pw", merged(extra, [kSecReturnPersistentRef as String: true])))
    #expect(status == errSecSuccess)
    return try #require(result as? Data)
}

private func byReference(_ reference: Data) -> Query { [kSecValuePersistentRef as String: reference] }

@Suite("Persistent references")
struct PersistentReferenceTests {
    @Test("A persistent reference finds its item without kSecClass")
    func findsWithoutClass() throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference()
            #expect(add(newGenericPassword(account: "other", secret: "other")) == errSecSuccess)
            let (status, result) = copyMatching(merged(byReference(reference), [
                kSecReturnData as String: true, kSecReturnAttributes as String: true,
            ]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned[kSecValueData as String] as? Data == Data("pw".utf8))
            #expect(returned[kSecAttrAccount as String] as? String == "user")
        }
    }

    @Test("A persistent reference with its kSecClass also finds the item")
    func findsWithClass() throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference()
            let query = merged(byReference(reference), [kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true])
            #expect(copyMatching(query).result as? Data == Data("pw".utf8))
        }
    }

    @Test("A persistent reference updates its item only")
    func updates() throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference()
            #expect(add(newGenericPassword(account: "other", secret: "other")) == errSecSuccess)
            #expect(update(byReference(reference), [kSecValueData as String: Data("new".utf8)]) == errSecSuccess)
            #expect(secret(genericPassword()) == Data("new".utf8))
            #expect(secret(genericPassword(account: "other")) == Data("other".utf8))
        }
    }

    @Test("A persistent reference deletes its item only")
    func deletes() throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference()
            #expect(add(newGenericPassword(account: "other")) == errSecSuccess)
            #expect(delete(byReference(reference)) == errSecSuccess)
            #expect(count(genericPassword()) == 0)
            #expect(count(genericPassword(account: "other")) == 1)
            #expect(copyMatching(byReference(reference)).status == errSecItemNotFound)
            #expect(delete(byReference(reference)) == errSecItemNotFound)
            #expect(update(byReference(reference), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        }
    }

    @Test("A persistent reference is stable across updates, including primary-key changes")
    func stableAcrossUpdates() throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference()
            #expect(update(genericPassword(), [kSecAttrLabel as String: "L", kSecValueData as String: Data("x".utf8)]) == errSecSuccess)
            #expect(persistentReference(genericPassword()) == reference)
            #expect(update(genericPassword(), [kSecAttrAccount as String: "renamed"]) == errSecSuccess)
            #expect(persistentReference(genericPassword(account: "renamed")) == reference)
            #expect(secret(byReference(reference)) == Data("x".utf8))
        }
    }

    @Test("Every item has its own persistent reference, and it names the item's class")
    func distinctReferences() throws {
        try TemporaryKeychain.run { _ in
            let first = try addWithReference()
            let second = try addWithReference([kSecAttrAccount as String: "second"])
            #expect(first != second)
            let (status, result) = addReturning(merged(keyItem(), [kSecReturnPersistentRef as String: true]))
            #expect(status == errSecSuccess)
            #expect((result as? Data)?.prefix(4) == Data("keys".utf8))
        }
    }

    @Test(
        "A persistent reference with other attributes in SecItemCopyMatching is errSecParam",
        arguments: ["acct", "svce", "labl", "agrp", "sync", "pdmn"])
    func referenceWithAttributes(attribute: String) throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference()
            let value: Any = attribute == "sync" ? false : (attribute == "pdmn" ? kSecAttrAccessibleWhenUnlocked : "x")
            #expect(copyMatching(merged(byReference(reference), [attribute: value])).status == errSecParam)
        }
    }

    @Test("A persistent reference with search controls (return keys, limit) is fine")
    func referenceWithControls() throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference()
            let query = merged(byReference(reference), [
                kSecReturnPersistentRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
            ])
            let (status, result) = copyMatching(query)
            #expect(status == errSecSuccess)
            #expect(result as? [Data] == [reference])
        }
    }

    @Test(
        "A malformed persistent reference is errSecParam",
        arguments: [
            ("too short", Data("genp".utf8) as any Sendable), ("empty", Data()),
            ("unknown class", Data("xxxx0123456789abcdef".utf8)), ("21 bytes", Data("genp0123456789abcdefg".utf8)),
            ("a string", "genp0123456789abcdef"), ("a number", 20),
        ])
    func malformedReference(name: String, value: any Sendable) throws {
        try TemporaryKeychain.run { _ in
            _ = try addWithReference()
            #expect(copyMatching([kSecValuePersistentRef as String: value, kSecReturnData as String: true]).status == errSecParam)
            #expect(update([kSecValuePersistentRef as String: value], [kSecAttrLabel as String: "x"]) == errSecParam)
            #expect(delete([kSecValuePersistentRef as String: value]) == errSecParam)
            #expect(count(genericPassword()) == 1)
        }
    }

    @Test("A legacy 12-byte reference (class and big-endian row id) is accepted")
    func legacyReference() throws {
        try TemporaryKeychain.run { _ in
            _ = try addWithReference()
            var rowID = Int64(1).bigEndian
            let legacy = Data("genp".utf8) + Data(bytes: &rowID, count: 8)
            #expect(secret(byReference(legacy)) == Data("pw".utf8))
            var missing = Int64(99).bigEndian
            #expect(copyMatching(byReference(Data("genp".utf8) + Data(bytes: &missing, count: 8))).status == errSecItemNotFound)
        }
    }

    @Test("A well-formed reference to no item is errSecItemNotFound")
    func referenceToNothing() throws {
        try TemporaryKeychain.run { _ in
            _ = try addWithReference()
            let nowhere = Data("genp".utf8) + Data(repeating: 0xAB, count: 16)
            #expect(copyMatching(byReference(nowhere)).status == errSecItemNotFound)
            #expect(delete(byReference(nowhere)) == errSecItemNotFound)
        }
    }

    @Test("Synchronizable items cannot be fetched by persistent reference")
    func synchronizableItems() throws {
        try TemporaryKeychain.run { _ in
            let reference = try addWithReference([kSecAttrSynchronizable as String: true])
            #expect(copyMatching(merged(byReference(reference), [kSecReturnData as String: true])).status == errSecItemNotFound)
            #expect(count(merged(genericPassword(), [kSecAttrSynchronizable as String: true])) == 1)
        }
    }

    @Test("A persistent reference is not returned among the attributes")
    func notAnAttribute() throws {
        try TemporaryKeychain.run { _ in
            _ = try addWithReference()
            let returned = try #require(attributes(genericPassword()))
            #expect(returned[kSecValuePersistentRef as String] == nil)
            #expect(returned["persistref"] == nil)
        }
    }
}
