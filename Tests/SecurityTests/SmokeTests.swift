import Foundation
import Security
import Testing

@Test func smoke() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
    setenv("XDG_DATA_HOME", dir, 1)
    let add: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "svc",
        kSecAttrAccount as String: "acct",
        kSecValueData as String: Data("pw".utf8),
    ]
    #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
    #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
    var out: CFTypeRef?
    let q: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecAttrAccount as String: "acct", kSecReturnData as String: true]
    #expect(SecItemCopyMatching(q as CFDictionary, &out) == errSecSuccess)
    #expect((out as? Data) == Data("pw".utf8))
    let q2: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]
    #expect(SecItemCopyMatching(q2 as CFDictionary, &out) == errSecSuccess)
    print(out as Any)
    #expect(SecItemUpdate([kSecClass as String: kSecClassGenericPassword] as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary) == errSecSuccess)
    #expect(SecItemCopyMatching(q as CFDictionary, &out) == errSecSuccess)
    #expect((out as? Data) == Data("new".utf8))
    #expect(SecItemDelete([kSecClass as String: kSecClassGenericPassword] as CFDictionary) == errSecSuccess)
    #expect(SecItemDelete([kSecClass as String: kSecClassGenericPassword] as CFDictionary) == errSecItemNotFound)
    print(SecCopyErrorMessageString(errSecItemNotFound, nil) as Any)
}
