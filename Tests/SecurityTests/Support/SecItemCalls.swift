import Foundation
import Security

/// A SecItem dictionary as client code writes it.
typealias Query = [String: Any]

// Thin wrappers around the four SecItem functions, so tests read as the behaviour they check.

/// `SecItemAdd` without a result.
func add(_ attributes: Query) -> OSStatus {
    SecItemAdd(attributes as CFDictionary, nil)
}

/// `SecItemAdd` with a result pointer.
func addReturning(_ attributes: Query) -> (status: OSStatus, result: CFTypeRef?) {
    var result: CFTypeRef?
    let status = SecItemAdd(attributes as CFDictionary, &result)
    return (status, result)
}

/// `SecItemCopyMatching`.
func copyMatching(_ query: Query) -> (status: OSStatus, result: CFTypeRef?) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, result)
}

/// `SecItemUpdate`.
func update(_ query: Query, _ changes: Query) -> OSStatus {
    SecItemUpdate(query as CFDictionary, changes as CFDictionary)
}

/// `SecItemDelete`.
func delete(_ query: Query) -> OSStatus {
    SecItemDelete(query as CFDictionary)
}

/// `query` with more entries (later values win).
func merged(_ query: Query, _ extra: Query) -> Query {
    query.merging(extra) { _, new in new }
}

/// How many items `query` matches (every match, of every synchronizable state it names).
func count(_ query: Query) -> Int {
    let (status, result) = copyMatching(merged(query, [
        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
    ]))
    guard status == errSecSuccess else { return 0 }
    return (result as? [Any])?.count ?? -1
}

/// The secret of the one item `query` matches.
func secret(_ query: Query) -> Data? {
    let (status, result) = copyMatching(merged(query, [kSecReturnData as String: true]))
    return status == errSecSuccess ? result as? Data : nil
}

/// The attributes of the one item `query` matches.
func attributes(_ query: Query) -> [String: Any]? {
    let (status, result) = copyMatching(merged(query, [kSecReturnAttributes as String: true]))
    return status == errSecSuccess ? result as? [String: Any] : nil
}

/// The persistent reference of the one item `query` matches.
func persistentReference(_ query: Query) -> Data? {
    let (status, result) = copyMatching(merged(query, [kSecReturnPersistentRef as String: true]))
    return status == errSecSuccess ? result as? Data : nil
}

// MARK: - Item builders

/// A generic password's primary key.
func genericPassword(service: String = "com.example.service", account: String = "user") -> Query {
    [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: service,
        kSecAttrAccount as String: account,
    ]
}

/// A generic password to add, with a secret.
func newGenericPassword(
    service: String = "com.example.service", account: String = "user", secret: String = "secret", _ extra: Query = [:]
) -> Query {
    merged(genericPassword(service: service, account: account), merged([kSecValueData as String: Data(secret.utf8)], extra))
}

/// An internet password with every primary-key attribute.
func internetPassword(server: String = "forum.example.org", account: String = "rhea") -> Query {
    [
        kSecClass as String: kSecClassInternetPassword,
        kSecAttrServer as String: server,
        kSecAttrAccount as String: account,
        kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
        kSecAttrPort as String: 443,
        kSecAttrPath as String: "/login",
        kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
        kSecAttrSecurityDomain as String: "realm",
    ]
}

/// A key item with every primary-key attribute.
func keyItem(tag: String = "com.example.key", keyClass: CFString = kSecAttrKeyClassPrivate) -> Query {
    [
        kSecClass as String: kSecClassKey,
        kSecAttrApplicationTag as String: Data(tag.utf8),
        kSecAttrApplicationLabel as String: Data("label-\(tag)".utf8),
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
        kSecAttrKeyClass as String: keyClass,
        kSecAttrKeySizeInBits as String: 256,
        kSecAttrEffectiveKeySize as String: 256,
    ]
}

/// A certificate item with every primary-key attribute.
func certificateItem(serial: String = "01") -> Query {
    [
        kSecClass as String: kSecClassCertificate,
        kSecAttrIssuer as String: Data("CN=Example Root".utf8),
        kSecAttrSerialNumber as String: Data(serial.utf8),
        kSecAttrCertificateType as String: 3,
    ]
}

/// Only the class of `query`.
func classOnly(_ query: Query) -> Query {
    [kSecClass as String: query[kSecClass as String]!]
}

/// `value` as an `NSNumber`, for comparing returned numbers and booleans.
func number(_ value: Any?) -> NSNumber? { value as? NSNumber }
