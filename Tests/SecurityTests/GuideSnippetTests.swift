import Foundation
import Security
import Testing

/// Runs the Swift snippets of three keychain guides, copied verbatim into GuideSnippets/ (a guide to
/// the item classes; `KeychainAPIReference`, a Keychain Services API reference; `IOSKeychainArticle`,
/// an article on the iOS keychain), and checks the statuses and results those guides describe.
@Suite("Snippets of three keychain guides")
struct GuideSnippetTests {
    // MARK: The item-classes guide

    @Test("Item-classes guide, addLicenseKey: adds once, then reports errSecDuplicateItem for the caller to update")
    func addLicenseKeySnippet() throws {
        try TemporaryKeychain.run { _ in
            #expect(addLicenseKey(Data("KEY-1".utf8)) == errSecSuccess)
            #expect(addLicenseKey(Data("KEY-2".utf8)) == errSecDuplicateItem)
            let license = try #require(try describeLicense())
            #expect(license[kSecValueData as String] as? Data == Data("KEY-1".utf8))
            #expect(license[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        }
    }

    @Test("Item-classes guide, describeLicense: nil when absent; account, service, dates, accessibility, sync flag and data when present")
    func describeLicenseSnippet() throws {
        try TemporaryKeychain.run { _ in
            #expect(try describeLicense() == nil)
            #expect(addLicenseKey(Data("KEY".utf8)) == errSecSuccess)
            let license = try #require(try describeLicense())
            #expect(license["acct"] as? String == "license")
            #expect(license["svce"] as? String == "com.example.editor")
            #expect(license[kSecAttrCreationDate as String] is Date)
            #expect(license[kSecAttrModificationDate as String] is Date)
            #expect(license[kSecAttrAccessible as String] as? String == "cku")
            #expect(number(license[kSecAttrSynchronizable as String]) == kCFBooleanFalse)
            #expect(license[kSecValueData as String] as? Data == Data("KEY".utf8))
        }
    }

    @Test("Item-classes guide, hidden: a web login stored as a generic password is not an internet password")
    func hiddenSnippet() throws {
        try TemporaryKeychain.run { _ in
            #expect(SecItemAdd(ItemClassesGuideHiddenExample().hidden as CFDictionary, nil) == errSecSuccess)
            let asWebCredential: Query = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "forum.example.org",
            ]
            #expect(copyMatching(asWebCredential).status == errSecItemNotFound)
            #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "forum.example.org"]) == 1)
        }
    }

    @Test("Item-classes guide, webLogin: an internet password with the seven-attribute key")
    func webLoginSnippet() throws {
        try TemporaryKeychain.run { _ in
            #expect(SecItemAdd(webLogin(user: "rhea", secret: Data("pw".utf8)) as CFDictionary, nil) == errSecSuccess)
            #expect(SecItemAdd(webLogin(user: "rhea", secret: Data("other".utf8)) as CFDictionary, nil) == errSecDuplicateItem)
            #expect(SecItemAdd(webLogin(user: "theo", secret: Data("pw2".utf8)) as CFDictionary, nil) == errSecSuccess)
            let query: Query = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "forum.example.org",
                kSecAttrAccount as String: "rhea",
            ]
            #expect(secret(query) == Data("pw".utf8))
            let stored = try #require(attributes(query))
            #expect(stored["ptcl"] as? String == "htps")
            #expect(number(stored["port"]) == 443)
            #expect(stored["nleg"] == nil)
        }
    }

    @Test("Item-classes guide, upsert: adds, then updates on errSecDuplicateItem, and throws the status otherwise")
    func upsertSnippet() throws {
        try TemporaryKeychain.run { _ in
            let match: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                kSecAttrAccount as String: "acct",
            ]
            try upsert(match: match, payload: [kSecValueData as String: Data("one".utf8)])
            try upsert(match: match, payload: [
                kSecValueData as String: Data("two".utf8),
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ])
            #expect(count(match) == 1)
            #expect(secret(match) == Data("two".utf8))
            #expect(attributes(match)?[kSecAttrAccessible as String] as? String == "ck")
            #expect(throws: KeychainError(status: errSecParam)) {
                try upsert(match: match, payload: [kSecValueData as String: "not data"])
            }
        }
    }

    @Test("Item-classes guide, promoteWebLogins: generic passwords become internet passwords, the old items go")
    func promoteWebLoginsSnippet() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(service: "forum.example.org", account: "rhea", secret: "r-pw")) == errSecSuccess)
            #expect(add(newGenericPassword(service: "forum.example.org", account: "theo", secret: "t-pw")) == errSecSuccess)
            let existing: Query = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "forum.example.org",
                kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrAccount as String: "theo",
                kSecValueData as String: Data("stale".utf8),
            ]
            #expect(add(existing) == errSecSuccess)
            try promoteWebLogins(oldService: "forum.example.org", host: "forum.example.org")
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
            let internet: Query = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "forum.example.org"]
            #expect(count(internet) == 2)
            #expect(secret(merged(internet, [kSecAttrAccount as String: "rhea"])) == Data("r-pw".utf8))
            #expect(secret(merged(internet, [kSecAttrAccount as String: "theo"])) == Data("t-pw".utf8))
            try promoteWebLogins(oldService: "forum.example.org", host: "forum.example.org")
            #expect(count(internet) == 2)
        }
    }

    @Test("Item-classes guide, makeReceiptSigningKey stores a P-256 private key under its tag; makeEnclaveKey reports errSecUnimplemented (no Secure Enclave)")
    func keySnippets() throws {
        try TemporaryKeychain.run { _ in
            let key = try ItemClassesGuideKeys().makeReceiptSigningKey()
            let query: Query = [
                kSecClass as String: kSecClassKey,
                kSecAttrApplicationTag as String: Data("com.example.receipts.signing".utf8),
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                kSecReturnRef as String: true,
            ]
            #expect(copyMatching(query).result as? SecKey == key)
            #expect(SecKeyGetBlockSize(key) == 32)
            do {
                _ = try ItemClassesGuideKeys().makeEnclaveKey()
                Issue.record("a Secure Enclave key was made without a Secure Enclave")
            } catch let error as NSError {
                #expect(error.domain == kCFErrorDomainOSStatus as String)
                #expect(error.code == Int(errSecUnimplemented))
            }
            #expect(count([kSecClass as String: kSecClassKey]) == 1)
        }
    }

    @Test("Item-classes guide, storeServerRoot: a non-certificate gives nil from SecCertificateCreateWithData, so errSecParam")
    func storeServerRootSnippet() throws {
        try TemporaryKeychain.run { _ in
            // CertificateTests runs the snippet with a real certificate.
            #expect(throws: KeychainError(status: errSecParam)) {
                try storeServerRoot(der: Data([0x30, 0x03, 0x02, 0x01, 0x01]))
            }
            #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
        }
    }

    @Test("Item-classes guide, importClientIdentity: malformed PKCS#12 data is errSecDecode")
    func importClientIdentitySnippet() throws {
        // IdentityReferenceTests runs the snippet with real files.
        #expect(throws: KeychainError(status: errSecDecode)) {
            _ = try importClientIdentity(p12: Data([0x30, 0x00]), password: "secret")
        }
    }

    // MARK: The API reference

    @Test("API reference, quick reference: add, read, update, read, delete")
    func quickReference() throws {
        try TemporaryKeychain.run { _ in
            let reference = KeychainAPIReference()
            #expect(reference.addGenericPassword() == errSecSuccess)
            #expect(reference.addGenericPassword() == errSecDuplicateItem)
            let (readStatus, data) = reference.readGenericPassword()
            #expect(readStatus == errSecSuccess)
            #expect(data == "secret".data(using: .utf8))
            #expect(reference.updateGenericPassword() == errSecSuccess)
            #expect(reference.readGenericPassword().1 == "newSecret".data(using: .utf8))
            #expect(reference.deleteGenericPassword() == errSecSuccess)
            #expect(reference.readGenericPassword().0 == errSecItemNotFound)
            #expect(reference.updateGenericPassword() == errSecItemNotFound)
            #expect(reference.deleteGenericPassword() == errSecItemNotFound)
        }
    }

    @Test("API reference, access-control snippet: WhenPasscodeSetThisDeviceOnly without a passcode is errSecAuthFailed")
    func accessControlSnippet() throws {
        try TemporaryKeychain.run { _ in
            #expect(KeychainAPIReference().createAccessControlAndAdd() == errSecAuthFailed)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
        }
    }

    @Test("API reference, OSStatus snippet: a failing add is reported with its message")
    func interpretSnippet() throws {
        try TemporaryKeychain.run { _ in
            let reference = KeychainAPIReference()
            #expect(reference.addAndInterpret(reference.syncQuery()) == errSecSuccess)
            #expect(reference.addAndInterpret(reference.syncQuery()) == errSecDuplicateItem)
        }
    }

    @Test("API reference, sharing snippet: the explicit group needs the entitlement")
    func sharingSnippet() throws {
        try TemporaryKeychain.run { environment in
            let reference = KeychainAPIReference()
            #expect(SecItemAdd(reference.sharedQuery() as CFDictionary, nil) == errSecMissingEntitlement)
            try environment.useEntitlements(.accessGroups("TEAMID.com.example.app", "TEAMID.com.example.shared"))
            #expect(SecItemAdd(reference.sharedQuery() as CFDictionary, nil) == errSecSuccess)
            let stored = attributes([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "shared-token"])
            #expect(stored?[kSecAttrAccessGroup as String] as? String == "TEAMID.com.example.shared")
        }
    }

    @Test("API reference, sync snippet: a synchronizable item, seen by default searches")
    func syncSnippet() throws {
        try TemporaryKeychain.run { _ in
            #expect(SecItemAdd(KeychainAPIReference().syncQuery() as CFDictionary, nil) == errSecSuccess)
            let stored = attributes([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "sync-token"])
            #expect(number(stored?[kSecAttrSynchronizable as String]) == kCFBooleanTrue)
        }
    }

    // MARK: The iOS keychain article

    @Test("iOS keychain article, saveToken and readToken: save replaces, read returns the latest")
    func saveAndReadToken() throws {
        try TemporaryKeychain.run { _ in
            let article = IOSKeychainArticle()
            try article.saveToken(token: "first", service: "com.example.api")
            #expect(try article.readToken(service: "com.example.api") == "first")
            try article.saveToken(token: "second", service: "com.example.api")
            #expect(try article.readToken(service: "com.example.api") == "second")
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
            do {
                _ = try article.readToken(service: "com.example.missing")
                Issue.record("readToken found a token that was never saved")
            } catch IOSKeychainArticle.KeychainError.unexpectedStatus(let status) {
                #expect(status == errSecItemNotFound)
            }
        }
    }

    @Test("iOS keychain article, saveWithBiometry: the item is stored with its access control, saving again replaces it, and its secret needs biometry (errSecAuthFailed without a reader)")
    func saveWithBiometrySnippet() throws {
        try TemporaryKeychain.run { _ in
            let article = IOSKeychainArticle()
            try article.saveWithBiometry(data: Data("one".utf8), key: "bio")
            try article.saveWithBiometry(data: Data("two".utf8), key: "bio")
            let query: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bio"]
            #expect(count(query) == 1)
            let read = copyMatching(merged(query, [kSecReturnData as String: true]))
            #expect(read.status == errSecAuthFailed)
            #expect(read.result == nil)
            let stored = try #require(attributes(query))
            #expect(stored[kSecAttrAccessible as String] as? String == "aku")
            let expected = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, nil)
            #expect(stored[kSecAttrAccessControl as String] as? SecAccessControl == expected)
        }
    }

    @Test("iOS keychain article, saveSharedToken: stored only when the process has the group")
    func saveSharedTokenSnippet() throws {
        try TemporaryKeychain.run { environment in
            let article = IOSKeychainArticle()
            let query: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "shared_token"]
            article.saveSharedToken(token: Data("t".utf8))
            #expect(count(query) == 0)
            try environment.useEntitlements(.accessGroups("TEAMID.com.example.app", "group.com.example.shared"))
            article.saveSharedToken(token: Data("t".utf8))
            #expect(secret(query) == Data("t".utf8))
        }
    }
}
