import Foundation
import Security
import Testing

@Suite("SecItemDelete")
struct DeleteTests {
    @Test("Every matching item is deleted")
    func deletesEveryMatch() throws {
        try TemporaryKeychain.run { _ in
            for name in ["a", "b", "c"] { #expect(add(newGenericPassword(account: name)) == errSecSuccess) }
            #expect(add(newGenericPassword(service: "other")) == errSecSuccess)
            #expect(delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.service"]) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
            #expect(count(genericPassword(service: "other")) == 1)
        }
    }

    @Test("A class-wide delete deletes only that class")
    func classWideDelete() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(add(merged(internetPassword(), [kSecValueData as String: Data("pw".utf8)])) == errSecSuccess)
            #expect(add(keyItem()) == errSecSuccess)
            #expect(add(certificateItem()) == errSecSuccess)
            #expect(delete([kSecClass as String: kSecClassGenericPassword]) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
            #expect(count([kSecClass as String: kSecClassInternetPassword]) == 1)
            #expect(count([kSecClass as String: kSecClassKey]) == 1)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 1)
        }
    }

    @Test("Nothing matching is errSecItemNotFound")
    func notFound() throws {
        try TemporaryKeychain.run { _ in
            #expect(delete(genericPassword()) == errSecItemNotFound)
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(delete(genericPassword(account: "nobody")) == errSecItemNotFound)
            #expect(delete(genericPassword()) == errSecSuccess)
            #expect(delete(genericPassword()) == errSecItemNotFound)
        }
    }

    @Test("A deleted item's primary key can be added again")
    func addAfterDelete() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "one")) == errSecSuccess)
            #expect(delete(genericPassword()) == errSecSuccess)
            #expect(add(newGenericPassword(secret: "two")) == errSecSuccess)
            #expect(secret(genericPassword()) == Data("two".utf8))
        }
    }

    @Test(
        "kSecMatch… keys other than kSecMatchLimitAll in a delete are errSecParam and delete nothing: a delete removes every match",
        arguments: [
            ("m_Limit", "m_LimitOne"), ("m_Limit", 3), ("m_Limit", 1), ("m_CaseInsensitive", true),
            ("m_ItemList", ["x"]),
        ] as [(String, any Sendable)])
    func matchKeysInDelete(key: String, value: any Sendable) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(delete(merged(genericPassword(), [key: value])) == errSecParam)
            #expect(count(genericPassword()) == 1)
        }
    }

    @Test("kSecMatchLimitAll in a delete, as macOS code passes it, deletes every match")
    func matchLimitAllInDelete() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "a")) == errSecSuccess)
            #expect(add(newGenericPassword(account: "b")) == errSecSuccess)
            #expect(add(newGenericPassword(service: "other", account: "c")) == errSecSuccess)
            let all = merged(genericPassword(), [kSecMatchLimit as String: kSecMatchLimitAll])
            #expect(delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.service",
                            kSecMatchLimit as String: kSecMatchLimitAll]) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
            #expect(delete(all) == errSecItemNotFound)
            let both = merged(all, [kSecMatchCaseInsensitive as String: true])
            #expect(delete(both) == errSecParam)
        }
    }

    @Test("kSecValueData and kSecReturn… keys in a delete are ignored: data is never a search criterion")
    func ignoredKeysInDelete() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "a", secret: "right")) == errSecSuccess)
            #expect(add(newGenericPassword(account: "b", secret: "right")) == errSecSuccess)
            #expect(delete(merged(genericPassword(account: "a"), [kSecValueData as String: Data("wrong".utf8)])) == errSecSuccess)
            #expect(delete(merged(genericPassword(account: "b"), [kSecReturnData as String: true])) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
        }
    }

    @Test("A delete filtered by a non-key attribute deletes only the items with that value")
    func deleteByNonKeyAttribute() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "a", [kSecAttrLabel as String: "keep"])) == errSecSuccess)
            #expect(add(newGenericPassword(account: "b", [kSecAttrLabel as String: "drop"])) == errSecSuccess)
            #expect(delete([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "drop"]) == errSecSuccess)
            #expect(count(genericPassword(account: "a")) == 1)
            #expect(count(genericPassword(account: "b")) == 0)
        }
    }
}
