import Foundation
import Security
import Testing

@Suite("SecItemUpdate")
struct UpdateTests {
    @Test("Every matching item is updated")
    func updatesEveryMatch() throws {
        try TemporaryKeychain.run { _ in
            for name in ["a", "b", "c"] { #expect(add(newGenericPassword(account: name)) == errSecSuccess) }
            #expect(add(newGenericPassword(service: "other", account: "a")) == errSecSuccess)
            let service: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.service"]
            #expect(update(service, [kSecAttrLabel as String: "updated"]) == errSecSuccess)
            #expect(count(merged(service, [kSecAttrLabel as String: "updated"])) == 3)
            #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "updated"]) == 3)
            #expect(attributes(genericPassword(service: "other", account: "a"))?[kSecAttrLabel as String] == nil)
        }
    }

    @Test("kSecValueData replaces the secret and leaves the attributes")
    func replacesData() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "old", [kSecAttrLabel as String: "L"])) == errSecSuccess)
            #expect(update(genericPassword(), [kSecValueData as String: Data("new".utf8)]) == errSecSuccess)
            #expect(secret(genericPassword()) == Data("new".utf8))
            #expect(attributes(genericPassword())?[kSecAttrLabel as String] as? String == "L")
        }
    }

    @Test("A label change changes the metadata and not the secret")
    func changesLabel() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "pw", [kSecAttrLabel as String: "before"])) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrLabel as String: "after"]) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrLabel as String] as? String == "after")
            #expect(secret(genericPassword()) == Data("pw".utf8))
            #expect(copyMatching(merged(genericPassword(), [kSecAttrLabel as String: "before"])).status == errSecItemNotFound)
        }
    }

    @Test("A primary-key change moves the item")
    func changesPrimaryKey() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "old", secret: "pw")) == errSecSuccess)
            #expect(update(genericPassword(account: "old"), [kSecAttrAccount as String: "new"]) == errSecSuccess)
            #expect(copyMatching(genericPassword(account: "old")).status == errSecItemNotFound)
            #expect(secret(genericPassword(account: "new")) == Data("pw".utf8))
            #expect(add(newGenericPassword(account: "old")) == errSecSuccess)
        }
    }

    @Test("An update that would collide with another item is errSecDuplicateItem and changes nothing")
    func collidingUpdate() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "a", secret: "A")) == errSecSuccess)
            #expect(add(newGenericPassword(account: "b", secret: "B")) == errSecSuccess)
            let before = attributes(genericPassword(account: "a"))
            let status = update(genericPassword(account: "a"), [
                kSecAttrAccount as String: "b", kSecValueData as String: Data("changed".utf8),
                kSecAttrLabel as String: "changed",
            ])
            #expect(status == errSecDuplicateItem)
            #expect(secret(genericPassword(account: "a")) == Data("A".utf8))
            #expect(secret(genericPassword(account: "b")) == Data("B".utf8))
            let after = attributes(genericPassword(account: "a"))
            #expect(after?[kSecAttrLabel as String] == nil)
            #expect(after?[kSecAttrModificationDate as String] as? Date == before?[kSecAttrModificationDate as String] as? Date)
        }
    }

    @Test("A multi-item update where one item would collide changes none of them")
    func collidingMultiItemUpdate() throws {
        try TemporaryKeychain.run { _ in
            for name in ["a", "b", "c"] {
                #expect(add(newGenericPassword(account: name, secret: name)) == errSecSuccess)
            }
            let all: Query = [kSecClass as String: kSecClassGenericPassword]
            // Every item would get account "same": the second one collides with the first.
            #expect(update(all, [kSecAttrAccount as String: "same", kSecAttrLabel as String: "x"]) == errSecDuplicateItem)
            for name in ["a", "b", "c"] {
                #expect(secret(genericPassword(account: name)) == Data(name.utf8))
                #expect(attributes(genericPassword(account: name))?[kSecAttrLabel as String] == nil)
            }
            #expect(copyMatching(genericPassword(account: "same")).status == errSecItemNotFound)
            #expect(count(all) == 3)
        }
    }

    @Test("The modification date advances and the creation date stays")
    func dates() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let before = try #require(attributes(genericPassword()))
            let created = try #require(before[kSecAttrCreationDate as String] as? Date)
            let modified = try #require(before[kSecAttrModificationDate as String] as? Date)
            #expect(update(genericPassword(), [kSecAttrLabel as String: "x"]) == errSecSuccess)
            let after = try #require(attributes(genericPassword()))
            #expect(after[kSecAttrCreationDate as String] as? Date == created)
            let advanced = try #require(after[kSecAttrModificationDate as String] as? Date)
            #expect(advanced > modified)
            #expect(update(genericPassword(), [kSecValueData as String: Data("y".utf8)]) == errSecSuccess)
            let again = try #require(attributes(genericPassword())?[kSecAttrModificationDate as String] as? Date)
            #expect(again > advanced)
        }
    }

    @Test(
        "kSecClass, kSecMatch…, kSecReturn… or kSecValuePersistentRef in attributesToUpdate is errSecParam",
        arguments: [
            ("class", "genp"), ("class", "inet"), ("m_Limit", "m_LimitAll"), ("m_CaseInsensitive", true),
            ("r_Data", true), ("v_PersistentRef", Data("genp0123456789abcdef".utf8)), ("u_ItemList", ["x"]),
        ] as [(String, any Sendable)])
    func nonAttributeKeysInChanges(key: String, value: any Sendable) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let before = try #require(attributes(genericPassword()))
            #expect(update(genericPassword(), [key: value, kSecAttrLabel as String: "x"]) == errSecParam)
            let after = try #require(attributes(genericPassword()))
            #expect(after[kSecAttrLabel as String] == nil)
            #expect(after[kSecAttrModificationDate as String] as? Date == before[kSecAttrModificationDate as String] as? Date)
        }
    }

    @Test(
        "kSecMatch… or kSecReturn… keys in the update query are errSecParam: an update changes every match and returns nothing",
        arguments: [
            ("m_Limit", "m_LimitAll"), ("m_Limit", "m_LimitOne"), ("m_Limit", 1), ("m_CaseInsensitive", true),
            ("r_Data", true), ("r_Attributes", true), ("r_PersistentRef", true), ("r_Ref", true),
            ("u_ItemList", ["x"]),
        ] as [(String, any Sendable)])
    func searchKeysInUpdateQuery(key: String, value: any Sendable) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(merged(genericPassword(), [key: value]), [kSecAttrLabel as String: "x"]) == errSecParam)
            #expect(attributes(genericPassword())?[kSecAttrLabel as String] == nil)
        }
    }

    @Test("A kSecReturn… key set to false in the update query is accepted")
    func falseReturnKeyInUpdateQuery() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(merged(genericPassword(), [kSecReturnData as String: false]), [kSecAttrLabel as String: "x"]) == errSecSuccess)
        }
    }

    @Test("Nothing matching is errSecItemNotFound")
    func notFound() throws {
        try TemporaryKeychain.run { _ in
            #expect(update(genericPassword(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(genericPassword(account: "nobody"), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        }
    }

    @Test(
        "Wrong value types in attributesToUpdate are errSecParam and change nothing",
        arguments: [
            ("v_Data", "a string"), ("v_Data", 42), ("acct", Date(timeIntervalSince1970: 0)), ("labl", ["x"]),
            ("pdmn", "bogus"), ("sync", "maybe"), ("cdat", "yesterday"), ("accc", "not an access control"),
            ("agrp", 7), ("gena", ["k": "v"]),
        ] as [(String, any Sendable)])
    func wrongValueTypes(key: String, value: any Sendable) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "pw")) == errSecSuccess)
            #expect(update(genericPassword(), [key: value]) == errSecParam)
            #expect(secret(genericPassword()) == Data("pw".utf8))
        }
    }

    @Test("NSNull as a new value is errSecParam")
    func nullValue() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "pw")) == errSecSuccess)
            #expect(update(genericPassword(), [kSecValueData as String: NSNull()]) == errSecParam)
            #expect(update(genericPassword(), [kSecAttrLabel as String: NSNull()]) == errSecParam)
            #expect(secret(genericPassword()) == Data("pw".utf8))
        }
    }

    @Test("kSecValueData in the update query is ignored: data is never a search criterion")
    func dataInQueryIsIgnored() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "right")) == errSecSuccess)
            let query = merged(genericPassword(), [kSecValueData as String: Data("wrong".utf8)])
            #expect(update(query, [kSecAttrLabel as String: "x"]) == errSecSuccess)
            #expect(secret(genericPassword()) == Data("right".utf8))
        }
    }

    @Test("Accessibility can be changed by an update")
    func changesAccessibility() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(genericPassword(), [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrAccessible as String] as? String == "ck")
            #expect(count(merged(genericPassword(), [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked])) == 0)
        }
    }

    @Test("Read-only creation date and computed attributes cannot be forged by an update of other fields")
    func systemAttributesKeepTheirMeaning() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let past = Date(timeIntervalSince1970: 0)
            #expect(update(genericPassword(), [kSecAttrModificationDate as String: past]) == errSecSuccess)
            let modified = try #require(attributes(genericPassword())?[kSecAttrModificationDate as String] as? Date)
            #expect(modified > past)
        }
    }
}
