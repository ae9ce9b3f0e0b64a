import Foundation
import Security

/// The SecItem calls the helper makes, on generic passwords of one service.
struct PasswordClient: Sendable {
    let service: String

    /// An item as read back.
    struct Item {
        let account: String
        let label: String
        let secret: Data
    }

    private func query(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
         kSecAttrAccount as String: account]
    }

    func add(account: String, label: String, secret: Data) -> OSStatus {
        var attributes = query(account)
        attributes[kSecAttrLabel as String] = label
        attributes[kSecValueData as String] = secret
        return SecItemAdd(attributes as CFDictionary, nil)
    }

    func update(account: String, label: String, secret: Data) -> OSStatus {
        let changes: [String: Any] = [kSecAttrLabel as String: label, kSecValueData as String: secret]
        return SecItemUpdate(query(account) as CFDictionary, changes as CFDictionary)
    }

    func delete(account: String) -> OSStatus {
        SecItemDelete(query(account) as CFDictionary)
    }

    /// The item stored under `account`, with its label and secret.
    func read(account: String) -> (OSStatus, Item?) {
        var search = query(account)
        search[kSecReturnAttributes as String] = true
        search[kSecReturnData as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        return (status, (result as? [String: Any]).flatMap(Self.item))
    }

    /// How many items `account` names (at most one, by uniqueness).
    func count(account: String) -> (OSStatus, Int) {
        var search = query(account)
        search[kSecMatchLimit as String] = kSecMatchLimitAll
        search[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        return (status, (result as? [Any])?.count ?? 0)
    }

    /// Every generic password in the keychain, whatever its service.
    static func readAll() -> (OSStatus, [Item]) {
        let search: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnAttributes as String: true, kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        let items = ((result as? [Any]) ?? []).compactMap { ($0 as? [String: Any]).flatMap(item) }
        return (status, items)
    }

    private static func item(_ attributes: [String: Any]) -> Item? {
        guard let account = attributes[kSecAttrAccount as String] as? String else { return nil }
        return Item(
            account: account, label: attributes[kSecAttrLabel as String] as? String ?? "",
            secret: attributes[kSecValueData as String] as? Data ?? Data())
    }
}
