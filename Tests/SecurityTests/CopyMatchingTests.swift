import Foundation
import Security
import Testing

/// Three generic passwords of one service, added in order.
private func addThreeAccounts() {
    for name in ["a", "b", "c"] {
        #expect(add(newGenericPassword(account: name, secret: "secret-\(name)")) == errSecSuccess)
    }
}

private var byService: Query { [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.service",
] }

/// A `kSecMatchLimit` value that must be refused.
struct InvalidMatchLimit: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let make: @Sendable () -> Any

    static let all: [InvalidMatchLimit] = [
        .init(testDescription: "unknown string") { "m_LimitSome" },
        .init(testDescription: "empty string") { "" },
        .init(testDescription: "date") { Date() },
        .init(testDescription: "data") { Data([1]) },
        .init(testDescription: "fractional number") { 2.5 },
        .init(testDescription: "boolean") { true },
        .init(testDescription: "array") { [1] },
        .init(testDescription: "dictionary") { ["m_Limit": 1] },
        .init(testDescription: "null") { NSNull() },
    ]
}

@Suite("SecItemCopyMatching")
struct CopyMatchingTests {
    // MARK: Match limits

    @Test("Without kSecMatchLimit one item is returned as a single object, not an array")
    func defaultLimitIsOne() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [kSecReturnData as String: true]))
            #expect(status == errSecSuccess)
            #expect(result is Data)
            #expect(!(result is [Any]))
            #expect(result as? Data == Data("secret-a".utf8))
        }
    }

    @Test("kSecMatchLimitOne returns a single object")
    func limitOne() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitOne,
            ]))
            #expect(status == errSecSuccess)
            #expect(result is [String: Any])
            #expect((result as? [String: Any])?[kSecAttrAccount as String] as? String == "a")
        }
    }

    @Test("A numeric limit returns an array, even when one item matches")
    func numericLimitMatchingOneItem() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnData as String: true, kSecMatchLimit as String: 5,
            ]))
            #expect(status == errSecSuccess)
            let array = try #require(result as? [Data])
            #expect(array == [Data("secret".utf8)])
        }
    }

    @Test("A numeric limit caps the number of items returned")
    func numericLimitCaps() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnAttributes as String: true, kSecMatchLimit as String: 2,
            ]))
            #expect(status == errSecSuccess)
            #expect((result as? [[String: Any]])?.count == 2)
        }
    }

    @Test("A numeric limit of 1 is kSecMatchLimitOne: a single object (Apple: only a limit of exactly one gives a bare object)")
    func numericLimitOfOne() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnData as String: true, kSecMatchLimit as String: 1,
            ]))
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("secret-a".utf8))
        }
    }

    @Test("A limit of 0 finds nothing")
    func limitZero() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnData as String: true, kSecMatchLimit as String: 0,
            ]))
            #expect(status == errSecItemNotFound)
            #expect(result == nil)
        }
    }

    @Test("kSecMatchLimitAll returns every match in an array; -1 means the same")
    func limitAll() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            for limit in [kSecMatchLimitAll as Any, -1] {
                let (status, result) = copyMatching(merged(byService, [
                    kSecReturnAttributes as String: true, kSecMatchLimit as String: limit,
                ]))
                #expect(status == errSecSuccess)
                let rows = try #require(result as? [[String: Any]])
                #expect(Set(rows.compactMap { $0[kSecAttrAccount as String] as? String }) == ["a", "b", "c"])
            }
        }
    }

    @Test("An invalid kSecMatchLimit value is errSecParam", arguments: InvalidMatchLimit.all)
    func invalidLimit(limit: InvalidMatchLimit) throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnData as String: true, kSecMatchLimit as String: limit.make(),
            ]))
            #expect(status == errSecParam)
            #expect(result == nil)
        }
    }

    // MARK: Result shapes

    @Test("kSecReturnData alone returns Data")
    func dataOnly() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "hunter2")) == errSecSuccess)
            let (status, result) = copyMatching(merged(genericPassword(), [kSecReturnData as String: true]))
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("hunter2".utf8))
        }
    }

    @Test("An item stored without data matches: data alone gives no object, data with attributes omits kSecValueData")
    func itemWithoutData() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(genericPassword()) == errSecSuccess)
            let dataOnly = copyMatching(merged(genericPassword(), [kSecReturnData as String: true]))
            #expect(dataOnly.status == errSecSuccess)
            #expect(dataOnly.result == nil)
            let both = copyMatching(
                merged(genericPassword(), [kSecReturnData as String: true, kSecReturnAttributes as String: true]))
            #expect(both.status == errSecSuccess)
            let dictionary = try #require(both.result as? [String: Any])
            #expect(dictionary[kSecValueData as String] == nil)
            #expect(dictionary[kSecAttrAccount as String] as? String == "user")
        }
    }

    @Test("kSecReturnAttributes alone returns a dictionary with Apple's short keys and value types")
    func attributesOnly() throws {
        try TemporaryKeychain.run { _ in
            let before = Date().addingTimeInterval(-1)
            #expect(add(newGenericPassword([kSecAttrIsInvisible as String: true, kSecAttrCreator as String: 0x7465_7374])) == errSecSuccess)
            let (status, result) = copyMatching(merged(genericPassword(), [kSecReturnAttributes as String: true]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned["acct"] as? String == "user")
            #expect(returned["svce"] as? String == "com.example.service")
            #expect(returned["pdmn"] as? String == "ak")
            #expect(returned["agrp"] as? String == "default")
            #expect(number(returned["sync"]) == kCFBooleanFalse)
            #expect(number(returned["sync"]) == 0)
            #expect(number(returned["invi"]) == kCFBooleanTrue)
            #expect(number(returned["crtr"]) == 0x7465_7374)
            let created = try #require(returned["cdat"] as? Date)
            #expect(created >= before)
            #expect(returned["mdat"] is Date)
            #expect(returned[kSecValueData as String] == nil)
            #expect(returned[kSecValuePersistentRef as String] == nil)
            #expect(returned[kSecClass as String] == nil)
        }
    }

    @Test("A synchronizable item's sync attribute compares equal to kCFBooleanTrue")
    func synchronizableFlagIsNumberOne() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrSynchronizable as String: true])) == errSecSuccess)
            let returned = attributes(merged(genericPassword(), [kSecAttrSynchronizable as String: true]))
            #expect(number(returned?["sync"]) == kCFBooleanTrue)
            #expect(number(returned?["sync"]) == 1)
        }
    }

    @Test("Blob attributes come back in the type they were stored with")
    func blobAttributesKeepTheirType() throws {
        try TemporaryKeychain.run { _ in
            let account = Data([0x00, 0xFF, 0x10])
            let item = merged(newGenericPassword(), [kSecAttrAccount as String: account, kSecAttrLabel as String: "text label"])
            #expect(add(item) == errSecSuccess)
            let returned = attributes([kSecClass as String: kSecClassGenericPassword])
            #expect(returned?[kSecAttrAccount as String] as? Data == account)
            #expect(!(returned?[kSecAttrAccount as String] is String))
            #expect(returned?[kSecAttrLabel as String] as? String == "text label")
            #expect(returned?[kSecAttrService as String] as? String == "com.example.service")
        }
    }

    @Test("Internet password attributes keep Apple's types: port a number, protocol and authentication type strings")
    func internetPasswordAttributes() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(merged(internetPassword(), [kSecValueData as String: Data("pw".utf8)])) == errSecSuccess)
            let returned = try #require(attributes([kSecClass as String: kSecClassInternetPassword]))
            #expect(number(returned["port"]) == 443)
            #expect(returned["ptcl"] as? String == "htps")
            #expect(returned["atyp"] as? String == "form")
            #expect(returned["srvr"] as? String == "forum.example.org")
            #expect(returned["path"] as? String == "/login")
            #expect(returned["sdmn"] as? String == "realm")
        }
    }

    @Test("Key type and key class come back as numbers (Quirk 23)")
    func keyAttributesAreNumbers() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(keyItem()) == errSecSuccess)
            let returned = try #require(attributes([kSecClass as String: kSecClassKey]))
            #expect(number(returned["type"]) == 73)
            #expect(number(returned["kcls"]) == 1)
            #expect(number(returned["bsiz"]) == 256)
            #expect(returned["atag"] as? Data == Data("com.example.key".utf8))
        }
    }

    @Test("kSecReturnPersistentRef alone returns 20 bytes starting with the class")
    func persistentReferenceOnly() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(add(merged(internetPassword(), [kSecValueData as String: Data("pw".utf8)])) == errSecSuccess)
            let generic = try #require(persistentReference(genericPassword()))
            #expect(generic.count == 20)
            #expect(generic.prefix(4) == Data("genp".utf8))
            let internet = try #require(persistentReference([kSecClass as String: kSecClassInternetPassword]))
            #expect(internet.prefix(4) == Data("inet".utf8))
            #expect(generic.dropFirst(4) != internet.dropFirst(4))
        }
    }

    @Test("Data and attributes together return one dictionary")
    func dataAndAttributes() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "pw")) == errSecSuccess)
            let (status, result) = copyMatching(merged(genericPassword(), [
                kSecReturnData as String: true, kSecReturnAttributes as String: true,
            ]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned[kSecValueData as String] as? Data == Data("pw".utf8))
            #expect(returned[kSecAttrAccount as String] as? String == "user")
            #expect(returned[kSecValuePersistentRef as String] == nil)
        }
    }

    @Test("Data and persistent reference together return a dictionary of just those")
    func dataAndPersistentReference() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "pw")) == errSecSuccess)
            let (status, result) = copyMatching(merged(genericPassword(), [
                kSecReturnData as String: true, kSecReturnPersistentRef as String: true,
            ]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned[kSecValueData as String] as? Data == Data("pw".utf8))
            #expect((returned[kSecValuePersistentRef as String] as? Data)?.count == 20)
            #expect(returned[kSecAttrAccount as String] == nil)
        }
    }

    @Test("Attributes and persistent reference together return a dictionary without the secret")
    func attributesAndPersistentReference() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "pw")) == errSecSuccess)
            let (status, result) = copyMatching(merged(genericPassword(), [
                kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true,
            ]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned[kSecValuePersistentRef as String] as? Data == persistentReference(genericPassword()))
            #expect(returned[kSecAttrService as String] as? String == "com.example.service")
            #expect(returned[kSecValueData as String] == nil)
        }
    }

    @Test("Every part with kSecMatchLimitAll returns an array of dictionaries")
    func allPartsForAllItems() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnData as String: true, kSecReturnAttributes as String: true,
                kSecReturnPersistentRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
            ]))
            #expect(status == errSecSuccess)
            let rows = try #require(result as? [[String: Any]])
            #expect(rows.count == 3)
            for row in rows {
                let account = try #require(row[kSecAttrAccount as String] as? String)
                #expect(row[kSecValueData as String] as? Data == Data("secret-\(account)".utf8))
                #expect((row[kSecValuePersistentRef as String] as? Data)?.count == 20)
            }
        }
    }

    @Test("Persistent references with kSecMatchLimitAll return an array of Data")
    func persistentReferencesForAllItems() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            let (status, result) = copyMatching(merged(byService, [
                kSecReturnPersistentRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
            ]))
            #expect(status == errSecSuccess)
            let references = try #require(result as? [Data])
            #expect(Set(references).count == 3)
        }
    }

    @Test("kSecReturnData with kSecMatchLimitAll on passwords returns an array of Data", arguments: ["genp", "inet"])
    func dataForAllItems(itemClass: String) throws {
        try TemporaryKeychain.run { _ in
            let item: Query = itemClass == "genp" ? genericPassword() : internetPassword()
            #expect(add(merged(item, [kSecValueData as String: Data("one".utf8), kSecAttrAccount as String: "1"])) == errSecSuccess)
            #expect(add(merged(item, [kSecValueData as String: Data("two".utf8), kSecAttrAccount as String: "2"])) == errSecSuccess)
            let (status, result) = copyMatching([
                kSecClass as String: itemClass, kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ])
            #expect(status == errSecSuccess)
            let secrets = try #require(result as? [Data])
            #expect(Set(secrets) == [Data("one".utf8), Data("two".utf8)])
        }
    }

    @Test("kSecReturnRef on a password succeeds with no reference: passwords have no reference type", arguments: ["genp", "inet"])
    func referenceOnPasswords(itemClass: String) throws {
        try TemporaryKeychain.run { _ in
            let item: Query = itemClass == "genp" ? genericPassword() : internetPassword()
            #expect(add(merged(item, [kSecValueData as String: Data("pw".utf8)])) == errSecSuccess)
            let (status, result) = copyMatching([kSecClass as String: itemClass, kSecReturnRef as String: true])
            #expect(status == errSecSuccess)
            #expect(result == nil)
            let (both, dictionary) = copyMatching([
                kSecClass as String: itemClass, kSecReturnRef as String: true, kSecReturnAttributes as String: true,
            ])
            #expect(both == errSecSuccess)
            let returned = try #require(dictionary as? [String: Any])
            #expect(returned[kSecValueRef as String] == nil)
            #expect(returned[kSecAttrAccount as String] != nil)
        }
    }

    @Test("kSecReturnRef on keys and certificates whose data is no key or certificate: the add succeeds without an object, searches find nothing to return", arguments: ["keys", "cert"])
    func referenceOnKeysAndCertificates(itemClass: String) throws {
        try TemporaryKeychain.run { _ in
            let item = itemClass == "keys" ? keyItem() : certificateItem()
            let (addStatus, added) = addReturning(merged(item, [kSecReturnRef as String: true]))
            #expect(addStatus == errSecSuccess)
            #expect(added == nil)
            #expect(count(classOnly(item)) == 1)
            let (status, result) = copyMatching([kSecClass as String: itemClass, kSecReturnRef as String: true])
            #expect(status == errSecItemNotFound)
            #expect(result == nil)
            #expect(copyMatching([kSecClass as String: itemClass, kSecReturnRef as String: true, kSecReturnAttributes as String: true]).status == errSecItemNotFound)
            #expect(copyMatching([kSecClass as String: itemClass, kSecReturnRef as String: false, kSecReturnAttributes as String: true]).status == errSecSuccess)
        }
    }

    @Test("A kSecReturn… key set to false is not returned")
    func falseReturnKey() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let (status, result) = copyMatching(merged(genericPassword(), [
                kSecReturnData as String: false, kSecReturnAttributes as String: true,
            ]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned[kSecValueData as String] == nil)
            #expect(returned[kSecAttrAccount as String] as? String == "user")
        }
    }

    @Test("A kSecReturn… key with a non-boolean value is errSecParam")
    func nonBooleanReturnKey() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(copyMatching(merged(genericPassword(), [kSecReturnData as String: "yes"])).status == errSecParam)
            #expect(copyMatching(merged(genericPassword(), [kSecReturnAttributes as String: Data()])).status == errSecParam)
        }
    }

    @Test("Without kSecReturn… keys a search reports success and returns nothing")
    func noReturnKeys() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let (status, result) = copyMatching(genericPassword())
            #expect(status == errSecSuccess)
            #expect(result == nil)
            #expect(copyMatching(genericPassword(account: "nobody")).status == errSecItemNotFound)
        }
    }

    @Test("A search with a nil result pointer still reports its status")
    func nilResultPointer() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let query = merged(genericPassword(), [kSecReturnData as String: true])
            #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecSuccess)
            #expect(SecItemCopyMatching(genericPassword(account: "x") as CFDictionary, nil) == errSecItemNotFound)
        }
    }

    // MARK: Matching

    @Test("Nothing matching is errSecItemNotFound with a nil result")
    func notFound() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = copyMatching(merged(genericPassword(), [kSecReturnData as String: true]))
            #expect(status == errSecItemNotFound)
            #expect(result == nil)
        }
    }

    @Test("Searches see only their class")
    func searchesSeeOnlyTheirClass() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "rhea")) == errSecSuccess)
            #expect(copyMatching([kSecClass as String: kSecClassInternetPassword, kSecAttrAccount as String: "rhea"]).status == errSecItemNotFound)
            #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "rhea"]) == 1)
        }
    }

    @Test("String attributes match exactly and case-sensitively by default")
    func caseSensitiveByDefault() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(account: "Alice")) == errSecSuccess)
            #expect(copyMatching(genericPassword(account: "alice")).status == errSecItemNotFound)
            #expect(copyMatching(genericPassword(account: "Alic")).status == errSecItemNotFound)
            #expect(copyMatching(genericPassword(account: "Alice")).status == errSecSuccess)
        }
    }

    @Test("kSecMatchCaseInsensitive true compares string attributes case-insensitively")
    func caseInsensitive() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(service: "Com.Example.APP", account: "Ärger")) == errSecSuccess)
            let query = genericPassword(service: "com.example.app", account: "äRGER")
            #expect(copyMatching(merged(query, [kSecMatchCaseInsensitive as String: true])).status == errSecSuccess)
            #expect(copyMatching(merged(query, [kSecMatchCaseInsensitive as String: false])).status == errSecItemNotFound)
            #expect(copyMatching(query).status == errSecItemNotFound)
            let byLabel: Query = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "ärger", kSecMatchCaseInsensitive as String: true]
            #expect(count(byLabel) == 1)
        }
    }

    @Test("kSecValueData in a search is ignored: data is never a search criterion")
    func dataInSearchIsIgnored() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "right")) == errSecSuccess)
            let query = merged(genericPassword(), [kSecValueData as String: Data("wrong".utf8), kSecReturnData as String: true])
            let (status, result) = copyMatching(query)
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("right".utf8))
        }
    }

    @Test("kSecMatchHostOrSubdomainOfHost matches the host and its subdomains on internet passwords")
    func hostOrSubdomain() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(merged(internetPassword(server: "login.example.org"), [kSecValueData as String: Data("1".utf8)])) == errSecSuccess)
            #expect(add(merged(internetPassword(server: "example.com"), [kSecValueData as String: Data("2".utf8)])) == errSecSuccess)
            let query: Query = [kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: "example.org"]
            #expect(count(query) == 1)
            #expect(copyMatching(merged(genericPassword(), [kSecMatchHostOrSubdomainOfHost as String: "example.org"])).status == errSecUnimplemented)
        }
    }

    @Test("Certificate trust match keys on a password are errSecUnimplemented (Apple)")
    func certificateMatchKeysOnPasswords() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(copyMatching(merged(genericPassword(), [kSecMatchIssuers as String: [Data()]])).status == errSecUnimplemented)
        }
    }

    @Test("kSecUseItemList in a search is errSecParam")
    func itemListInSearch() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(copyMatching(merged(genericPassword(), [kSecUseItemList as String: [Data()]])).status == errSecParam)
        }
    }

    @Test("kSecUseAuthenticationUI: Skip is for searches only; unknown values are errSecParam")
    func authenticationUI() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            let skip: Query = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]
            #expect(copyMatching(merged(genericPassword(), skip)).status == errSecSuccess)
            #expect(copyMatching(merged(genericPassword(), [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])).status == errSecSuccess)
            #expect(add(newGenericPassword(account: "new", skip)) == errSecParam)
            #expect(update(merged(genericPassword(), skip), [kSecAttrLabel as String: "x"]) == errSecParam)
            #expect(delete(merged(genericPassword(), skip)) == errSecParam)
            #expect(copyMatching(merged(genericPassword(), [kSecUseAuthenticationUI as String: "u_AuthUIX"])).status == errSecParam)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
        }
    }

    @Test("The result can be read as Swift collections: out as? [[String: Any]]")
    func bridgesToSwiftCollections() throws {
        try TemporaryKeychain.run { _ in
            addThreeAccounts()
            var out: CFTypeRef?
            let query = merged(byService, [kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll])
            #expect(SecItemCopyMatching(query as CFDictionary, &out) == errSecSuccess)
            let rows = out as? [[String: Any]]
            #expect(rows?.count == 3)
            var anyObject: AnyObject?
            #expect(SecItemCopyMatching(query as CFDictionary, &anyObject) == errSecSuccess)
            #expect((anyObject as? NSArray)?.count == 3)
        }
    }
}
