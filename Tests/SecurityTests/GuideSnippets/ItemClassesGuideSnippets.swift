// The Swift snippets of a guide to the keychain's item classes ("Keychain Item Classes"), copied
// verbatim: they must compile and behave as the guide says through `import Security` alone. Only
// the wrapping needed to hold top-level statements (the `hidden` example) was added around them.

import Foundation
import Security

/// The status wrapper the guide's snippets throw, `KeychainError(status:)` (defined in a companion
/// guide that is not copied here).
struct KeychainError: Error, Equatable {
    let status: OSStatus

    init(status: OSStatus) {
        self.status = status
    }
}

// MARK: - Generic Password

func addLicenseKey(_ bytes: Data) -> OSStatus {
    var entry: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "com.example.editor",
        kSecAttrAccount as String: "license",
        kSecValueData as String: bytes,
        kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
    ]
    #if os(macOS)
    entry[kSecUseDataProtectionKeychain as String] = true
    #endif
    return SecItemAdd(entry as CFDictionary, nil)
}

// MARK: - Internet Password

/// Holds the guide's top-level `hidden` constant.
struct ItemClassesGuideHiddenExample {
    // Wrong: the domain is hidden in an opaque service string; AutoFill ignores it.
    let hidden: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "forum.example.org",
        kSecAttrAccount as String: "rhea",
        kSecValueData as String: Data("pw".utf8)
    ]
}

func webLogin(user: String, secret: Data) -> [String: Any] {
    [
        kSecClass as String: kSecClassInternetPassword,
        kSecAttrServer as String: "forum.example.org",
        kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
        kSecAttrPort as String: 443,
        kSecAttrPath as String: "/login",
        kSecAttrAccount as String: user,
        kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
        kSecValueData as String: secret,
        kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
        kSecUseDataProtectionKeychain as String: true
    ]
}

// MARK: - Key

/// Holds the key snippets. The guide writes `as Error?`; this package compiles its tests with the
/// `ExistentialAny` upcoming feature, under which a bare `Error` type warns, so `Error` here names
/// `any Error` and the snippets stay as written.
struct ItemClassesGuideKeys {
    typealias Error = any Swift.Error

    func makeReceiptSigningKey() throws -> SecKey {
        let tag = Data("com.example.receipts.signing".utf8)
        let spec: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true,
                kSecAttrApplicationTag as String: tag
            ]
        ]
        var failure: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(spec as CFDictionary, &failure) else {
            throw (failure?.takeRetainedValue() as Error?) ?? KeychainError(status: errSecParam)
        }
        return key
    }

    func makeEnclaveKey() throws -> SecKey {
        var failure: Unmanaged<CFError>?
        guard let policy = SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            [.privateKeyUsage, .userPresence], &failure) else {
            throw (failure?.takeRetainedValue() as Error?) ?? KeychainError(status: errSecParam)
        }
        let spec: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true,
                kSecAttrApplicationTag as String: Data("com.example.enclave.auth".utf8),
                kSecAttrAccessControl as String: policy
            ]
        ]
        guard let key = SecKeyCreateRandomKey(spec as CFDictionary, &failure) else {
            throw (failure?.takeRetainedValue() as Error?) ?? KeychainError(status: errSecParam)
        }
        return key
    }
}

// MARK: - Certificate

func storeServerRoot(der: Data) throws {
    guard let cert = SecCertificateCreateWithData(nil, der as CFData) else {
        throw KeychainError(status: errSecParam)
    }
    let entry: [String: Any] = [
        kSecClass as String: kSecClassCertificate,
        kSecValueRef as String: cert,
        kSecAttrLabel as String: "Internal root"
    ]
    let status = SecItemAdd(entry as CFDictionary, nil)
    guard status == errSecSuccess || status == errSecDuplicateItem else {
        throw KeychainError(status: status)
    }
}

// MARK: - Identity

func importClientIdentity(p12: Data, password: String) throws -> SecIdentity {
    let options = [kSecImportExportPassphrase as String: password]
    var items: CFArray?
    let status = SecPKCS12Import(p12 as CFData, options as CFDictionary, &items)
    guard status == errSecSuccess,
          let first = (items as? [[String: Any]])?.first,
          let identity = first[kSecImportItemIdentity as String] else {
        throw KeychainError(status: status)
    }
    return identity as! SecIdentity
}

// MARK: - Mistakes Generated Code Makes

func upsert(match: [String: Any], payload: [String: Any]) throws {
    let added = SecItemAdd(match.merging(payload) { _, new in new } as CFDictionary, nil)
    switch added {
    case errSecSuccess:
        return
    case errSecDuplicateItem:
        let changed = SecItemUpdate(match as CFDictionary, payload as CFDictionary)
        guard changed == errSecSuccess else { throw KeychainError(status: changed) }
    default:
        throw KeychainError(status: added)
    }
}

// MARK: - Size and When to Use a File

func describeLicense() throws -> [String: Any]? {
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "com.example.editor",
        kSecAttrAccount as String: "license",
        kSecReturnAttributes as String: true,
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne
    ]
    var out: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &out)
    if status == errSecItemNotFound { return nil }
    guard status == errSecSuccess else { throw KeychainError(status: status) }
    return out as? [String: Any]
}

// MARK: - Moving Web Logins to Internet Passwords

func promoteWebLogins(oldService: String, host: String) throws {
    let find: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: oldService,
        kSecReturnAttributes as String: true,
        kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitAll
    ]
    var out: CFTypeRef?
    let status = SecItemCopyMatching(find as CFDictionary, &out)
    if status == errSecItemNotFound { return }
    guard status == errSecSuccess, let rows = out as? [[String: Any]] else {
        throw KeychainError(status: status)
    }
    for row in rows {
        guard let user = row[kSecAttrAccount as String] as? String,
              let secret = row[kSecValueData as String] as? Data else { continue }
        let match: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword,
            kSecAttrServer as String: host,
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
            kSecAttrAccount as String: user,
            kSecUseDataProtectionKeychain as String: true
        ]
        try upsert(match: match, payload: [
            kSecValueData as String: secret,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked
        ])
        let removeOld: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: oldService,
            kSecAttrAccount as String: user
        ]
        let removed = SecItemDelete(removeOld as CFDictionary)
        guard removed == errSecSuccess || removed == errSecItemNotFound else {
            throw KeychainError(status: removed)
        }
    }
}
