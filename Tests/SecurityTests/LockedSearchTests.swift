import Foundation
import Security
@_spi(Testing) import Security
import Testing

/// A locked keychain still answers searches that rule out its locked items by what is stored in
/// the clear: the protection class (as Apple filters on the clear `pdmn` column).
@Suite("Searches of a locked keychain that name the protection class")
struct LockedSearchTests {
    @Test("locked, a kSecMatchLimitAll search naming AfterFirstUnlock returns those items and ignores the locked WhenUnlocked ones")
    func searchNamingAvailableClass() throws {
        try TemporaryKeychain.run { _ in
            DataProtectionTests.populate()
            #expect(SecDataProtectionTesting.lock() == errSecSuccess)
            var query: Query = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
                kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true, kSecReturnData as String: true,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let items = result as? [[String: Any]] ?? []
            #expect(items.count == 1)
            #expect(items.first?[kSecAttrService as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
            #expect(items.first?[kSecValueData as String] as? Data == Data("secret-\(kSecAttrAccessibleAfterFirstUnlock)".utf8))

            // The same search naming a locked class still fails: its items cannot be read.
            query[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecInteractionNotAllowed)
            // Without the protection class, a locked item might match: it fails too.
            query[kSecAttrAccessible as String] = nil
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecInteractionNotAllowed)
            // Updates and deletes that name an available class are not stopped by locked items either.
            let available: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccessible as String: kSecAttrAccessibleAlways]
            #expect(SecItemUpdate(available as CFDictionary, [kSecAttrLabel as String: "relabelled"] as CFDictionary) == errSecSuccess)
            #expect(SecItemDelete(available as CFDictionary) == errSecSuccess)
        }
    }
}
