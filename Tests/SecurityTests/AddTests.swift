import Foundation
import Security
import Testing

/// One primary-key member of one class, and a value that differs from `base(for:)`.
struct PrimaryKeyMember: Sendable, CustomTestStringConvertible {
    let itemClass: String
    let attribute: String

    var testDescription: String { "\(itemClass).\(attribute)" }

    /// The class's item with every primary-key attribute set, in access group `g1`.
    var base: Query {
        let item: Query
        switch itemClass {
        case "genp": item = genericPassword()
        case "inet": item = internetPassword()
        case "keys": item = keyItem()
        default: item = certificateItem()
        }
        return merged(item, [kSecAttrAccessGroup as String: "g1", kSecValueData as String: Data("s".utf8)])
    }

    /// `base` with only this attribute changed.
    var variant: Query {
        let other: Any
        switch attribute {
        case "svce", "acct", "srvr", "path", "sdmn": other = "other"
        case "atag", "klbl", "issr", "slnr": other = Data("other".utf8)
        case "port": other = 8443
        case "ptcl": other = kSecAttrProtocolFTP
        case "atyp": other = kSecAttrAuthenticationTypeHTTPBasic
        case "type": other = kSecAttrKeyTypeRSA
        case "kcls": other = kSecAttrKeyClassPublic
        case "bsiz", "esiz": other = 384
        case "ctyp": other = 2
        case "agrp": other = "g2"
        case "sync": other = true
        default: fatalError("no variant for \(attribute)")
        }
        return merged(base, [attribute: other])
    }

    static let all: [PrimaryKeyMember] =
        ["svce", "acct", "agrp", "sync"].map { PrimaryKeyMember(itemClass: "genp", attribute: $0) }
        + ["acct", "srvr", "path", "port", "ptcl", "atyp", "sdmn", "agrp", "sync"].map {
            PrimaryKeyMember(itemClass: "inet", attribute: $0)
        }
        + ["atag", "klbl", "type", "kcls", "bsiz", "esiz", "agrp", "sync"].map {
            PrimaryKeyMember(itemClass: "keys", attribute: $0)
        }
        + ["issr", "slnr", "ctyp", "agrp", "sync"].map { PrimaryKeyMember(itemClass: "cert", attribute: $0) }
}

/// An attribute outside a class's primary key, with two values.
struct NonKeyAttribute: Sendable, CustomTestStringConvertible {
    let itemClass: String
    let attribute: String

    var testDescription: String { "\(itemClass).\(attribute)" }

    var base: Query {
        switch itemClass {
        case "genp": return newGenericPassword()
        case "inet": return merged(internetPassword(), [kSecValueData as String: Data("s".utf8)])
        case "keys": return keyItem()
        default: return certificateItem()
        }
    }

    /// Two different values of the attribute.
    var values: (Any, Any) {
        switch attribute {
        case "gena", "subj", "pkhh": return (Data("first".utf8), Data("second".utf8))
        case "pdmn": return (kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
        case "crtr", "type": return (0x6162_6364, 0x7778_797A)
        case "invi", "nega", "sign", "perm": return (false, true)
        default: return ("first", "second")
        }
    }

    static let all: [NonKeyAttribute] =
        ["gena", "labl", "desc", "icmt", "pdmn", "crtr", "type", "invi", "nega"].map {
            NonKeyAttribute(itemClass: "genp", attribute: $0)
        }
        + ["labl", "desc", "icmt", "pdmn"].map { NonKeyAttribute(itemClass: "inet", attribute: $0) }
        + ["labl", "pdmn", "sign", "perm"].map { NonKeyAttribute(itemClass: "keys", attribute: $0) }
        + ["labl", "pdmn", "subj", "pkhh"].map { NonKeyAttribute(itemClass: "cert", attribute: $0) }
}

/// An attribute a class does not have: `errSecParam` in any dictionary (Apple's daemon says
/// `errSecNoSuchAttr`; the documented status for the certificate case is `errSecParam`).
struct ForeignAttribute: Sendable, CustomTestStringConvertible {
    let itemClass: String
    let attribute: String
    let note: String

    var testDescription: String { "\(attribute) on \(itemClass) (\(note))" }

    var item: Query {
        switch itemClass {
        case "genp": return genericPassword()
        case "inet": return internetPassword()
        case "keys": return keyItem()
        default: return certificateItem()
        }
    }

    var value: Any { ["atag", "issr"].contains(attribute) ? Data("x".utf8) : "x" }

    static let all: [ForeignAttribute] = [
        .init(itemClass: "inet", attribute: "svce", note: "kSecAttrService does not exist on internet passwords"),
        .init(itemClass: "inet", attribute: "gena", note: "kSecAttrGeneric does not exist on internet passwords"),
        .init(itemClass: "cert", attribute: "atag", note: "kSecAttrApplicationTag is not valid on certificates"),
        .init(itemClass: "genp", attribute: "srvr", note: "server is an internet-password attribute"),
        .init(itemClass: "genp", attribute: "atag", note: "the application tag is a key attribute"),
        .init(itemClass: "keys", attribute: "acct", note: "keys have no account"),
        .init(itemClass: "cert", attribute: "acct", note: "certificates have no account"),
        .init(itemClass: "genp", attribute: "issr", note: "the issuer is a certificate attribute"),
        .init(itemClass: "genp", attribute: "zzzz", note: "no class has this attribute"),
    ]
}

@Suite("SecItemAdd")
struct AddTests {
    // MARK: Each class's own checks

    @Test("An identity added without a kSecValueRef is errSecParam and stores nothing")
    func identityAddIsParam() throws {
        try TemporaryKeychain.run { _ in
            #expect(add([kSecClass as String: kSecClassIdentity]) == errSecParam)
            #expect(add(merged(certificateItem(), [kSecClass as String: kSecClassIdentity])) == errSecParam)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
        }
    }

    @Test("A key added without kSecAttrKeyType is errSecParam and stores nothing")
    func keyWithoutTypeIsParam() throws {
        try TemporaryKeychain.run { _ in
            var key = keyItem()
            key.removeValue(forKey: kSecAttrKeyType as String)
            #expect(add(key) == errSecParam)
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
            #expect(add(keyItem()) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassKey]) == 1)
        }
    }

    @Test("Adding twice with the same primary key is errSecDuplicateItem and keeps one item", arguments: ["genp", "inet", "keys", "cert"])
    func addTwiceIsDuplicate(itemClass: String) throws {
        try TemporaryKeychain.run { _ in
            let item = NonKeyAttribute(itemClass: itemClass, attribute: "labl").base
            #expect(add(item) == errSecSuccess)
            #expect(add(item) == errSecDuplicateItem)
            #expect(count(classOnly(item)) == 1)
        }
    }

    @Test("A synchronizable password that is WhenUnlockedThisDeviceOnly is errSecParam and is not stored")
    func synchronizableThisDeviceOnlyIsParam() throws {
        try TemporaryKeychain.run { _ in
            let item = newGenericPassword(
                [kSecAttrSynchronizable as String: true, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly])
            #expect(add(item) == errSecParam)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
        }
    }

    @Test("Certificate attributes with kSecAttrApplicationTag are errSecParam and store nothing")
    func certificateWithApplicationTagIsParam() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(merged(certificateItem(), [kSecAttrApplicationTag as String: Data("tag".utf8)])) == errSecParam)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
        }
    }

    @Test("A key query without kSecAttrKeyClass matches keys of every class")
    func keyQueryWithoutKeyClassMatchesEveryClass() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(keyItem(tag: "shared", keyClass: kSecAttrKeyClassPrivate)) == errSecSuccess)
            #expect(add(keyItem(tag: "shared", keyClass: kSecAttrKeyClassPublic)) == errSecSuccess)
            let byTag: Query = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("shared".utf8)]
            #expect(count(byTag) == 2)
            #expect(count(merged(byTag, [kSecAttrKeyClass as String: kSecAttrKeyClassPrivate])) == 1)
            let found = attributes(merged(byTag, [kSecAttrKeyClass as String: kSecAttrKeyClassPublic]))
            #expect(number(found?[kSecAttrKeyClass as String]) == 0)
        }
    }

    @Test("A key query without kSecAttrKeyType matches RSA and EC keys with the same tag")
    func keyQueryWithoutKeyTypeMatchesEveryType() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(keyItem(tag: "t")) == errSecSuccess)
            #expect(add(merged(keyItem(tag: "t"), [kSecAttrKeyType as String: kSecAttrKeyTypeRSA])) == errSecSuccess)
            let byTag: Query = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("t".utf8)]
            #expect(count(byTag) == 2)
            #expect(count(merged(byTag, [kSecAttrKeyType as String: kSecAttrKeyTypeRSA])) == 1)
        }
    }

    // MARK: Primary keys

    @Test("Each primary-key member makes items distinct", arguments: PrimaryKeyMember.all)
    func primaryKeyMemberMakesItemsDistinct(member: PrimaryKeyMember) throws {
        try TemporaryKeychain.run(entitlements: .accessGroups("g1", "g2")) { _ in
            #expect(add(member.base) == errSecSuccess)
            #expect(add(member.variant) == errSecSuccess)
            #expect(add(member.base) == errSecDuplicateItem)
            #expect(add(member.variant) == errSecDuplicateItem)
            #expect(count(merged(classOnly(member.base), [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 2)
        }
    }

    @Test(
        "Attributes outside the primary key do not make items unique, yet filter searches (Quirks 1-2)",
        arguments: NonKeyAttribute.all)
    func nonKeyAttributeDoesNotMakeItemsUnique(attribute: NonKeyAttribute) throws {
        try TemporaryKeychain.run { _ in
            let (first, second) = attribute.values
            #expect(add(merged(attribute.base, [attribute.attribute: first])) == errSecSuccess)
            #expect(add(merged(attribute.base, [attribute.attribute: second])) == errSecDuplicateItem)
            let search = merged(attribute.base, [kSecValueData as String: Data()])
            #expect(copyMatching(merged(search, [attribute.attribute: second])).status == errSecItemNotFound)
            #expect(copyMatching(merged(search, [attribute.attribute: first])).status == errSecSuccess)
            #expect(count(classOnly(attribute.base)) == 1)
        }
    }

    @Test(
        "Omitted primary-key attributes take empty defaults and collide",
        arguments: [
            ("genp", ["acct": "", "svce": ""] as [String: any Sendable]),
            ("inet", ["acct": "", "srvr": "", "path": "", "port": 0]),
            ("keys", ["atag": Data(), "klbl": Data(), "bsiz": 0, "esiz": 0, "kcls": 0]),
            ("cert", ["issr": Data(), "slnr": Data(), "ctyp": 0]),
        ])
    func omittedPrimaryKeyAttributesCollide(itemClass: String, explicitDefaults: [String: any Sendable]) throws {
        try TemporaryKeychain.run { _ in
            var bare: Query = [kSecClass as String: itemClass]
            if itemClass == "keys" { bare[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA }
            #expect(add(bare) == errSecSuccess)
            #expect(add(bare) == errSecDuplicateItem)
            #expect(add(merged(bare, explicitDefaults)) == errSecDuplicateItem)
            #expect(add(merged(bare, [kSecAttrLabel as String: "another label"])) == errSecDuplicateItem)
            #expect(count(bare) == 1)
        }
    }

    @Test("Generic password: service and account compare by bytes, whatever their type")
    func blobAttributesCompareByBytes() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(service: "svc", account: "alice")) == errSecSuccess)
            let asData = merged(newGenericPassword(service: "svc"), [kSecAttrAccount as String: Data("alice".utf8)])
            #expect(add(asData) == errSecDuplicateItem)
            #expect(add(newGenericPassword(service: "svc", account: "Alice")) == errSecSuccess)
        }
    }

    // MARK: Class-invalid attributes, identity

    @Test("An attribute the class does not have is errSecParam in an add, a search, an update and a delete", arguments: ForeignAttribute.all)
    func foreignAttributeIsParam(foreign: ForeignAttribute) throws {
        try TemporaryKeychain.run { _ in
            let item = merged(foreign.item, [kSecValueData as String: Data("s".utf8)])
            #expect(add(item) == errSecSuccess)
            let withForeign = merged(foreign.item, [foreign.attribute: foreign.value])
            #expect(add(merged(withForeign, [kSecAttrLabel as String: "second"])) == errSecParam)
            #expect(copyMatching(withForeign).status == errSecParam)
            #expect(update(withForeign, [kSecAttrLabel as String: "x"]) == errSecParam)
            #expect(update(foreign.item, [foreign.attribute: foreign.value]) == errSecParam)
            #expect(delete(withForeign) == errSecParam)
            #expect(count(classOnly(foreign.item)) == 1)
            #expect(attributes(foreign.item)?[kSecAttrLabel as String] == nil)
        }
    }

    // MARK: Search keys in an add

    @Test(
        "kSecMatch… keys and kSecUseItemList in SecItemAdd are errSecParam and store nothing: an add takes no search keys",
        arguments: [
            ("m_Limit", "m_LimitOne"), ("m_Limit", "m_LimitAll"), ("m_Limit", 5), ("m_CaseInsensitive", true),
            ("m_ItemList", ["x"]), ("m_SubjectContains", "x"), ("m_ValidOnDate", Date(timeIntervalSince1970: 0)),
            ("m_TrustedOnly", true), ("m_EmailAddressIfPresent", "a@example.org"), ("u_ItemList", ["x"]),
        ] as [(String, any Sendable)])
    func searchKeyInAddIsParam(key: String, value: any Sendable) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(merged(newGenericPassword(), [key: value])) == errSecParam)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
        }
    }

    // MARK: Defaults, control keys, system attributes

    @Test(
        "Default accessibility: WhenUnlocked for passwords and keys, Always for certificates",
        arguments: [("genp", "ak"), ("inet", "ak"), ("keys", "ak"), ("cert", "dk")])
    func defaultAccessibility(itemClass: String, expected: String) throws {
        try TemporaryKeychain.run { _ in
            let item = NonKeyAttribute(itemClass: itemClass, attribute: "labl").base
            let (status, result) = addReturning(merged(item, [kSecReturnAttributes as String: true]))
            #expect(status == errSecSuccess)
            #expect((result as? [String: Any])?[kSecAttrAccessible as String] as? String == expected)
            #expect(attributes(classOnly(item))?[kSecAttrAccessible as String] as? String == expected)
        }
    }

    @Test("An explicit accessibility is stored")
    func explicitAccessibilityIsStored() throws {
        try TemporaryKeychain.run { _ in
            let item = newGenericPassword([kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly])
            #expect(add(item) == errSecSuccess)
            #expect(attributes(genericPassword())?[kSecAttrAccessible as String] as? String == "cku")
        }
    }

    @Test("An unknown accessibility value is errSecParam")
    func unknownAccessibilityIsParam() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrAccessible as String: "bogus"])) == errSecParam)
            #expect(add(newGenericPassword([kSecAttrAccessible as String: 1])) == errSecParam)
            #expect(count(genericPassword()) == 0)
        }
    }

    @Test("kSecUseDataProtectionKeychain is accepted, ignored, never stored and never makes items differ: every item has data-protection semantics")
    func dataProtectionKeychainKeyIsIgnored() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(
                newGenericPassword([kSecUseDataProtectionKeychain as String: true, kSecReturnAttributes as String: true]))
            #expect(status == errSecSuccess)
            #expect((result as? [String: Any])?["nleg"] == nil)
            #expect(add(newGenericPassword()) == errSecDuplicateItem)
            #expect(add(newGenericPassword([kSecUseDataProtectionKeychain as String: false])) == errSecDuplicateItem)
            let stored = attributes(genericPassword())
            #expect(stored != nil)
            #expect(stored?["nleg"] == nil)
            #expect(count(merged(genericPassword(), [kSecUseDataProtectionKeychain as String: true])) == 1)
            #expect(count(merged(genericPassword(), [kSecUseDataProtectionKeychain as String: false])) == 1)
            #expect(update(genericPassword(), [kSecUseDataProtectionKeychain as String: true, kSecAttrLabel as String: "l"]) == errSecSuccess)
            #expect(attributes(genericPassword())?["nleg"] == nil)
        }
    }

    @Test("Creation and modification dates are set by the keychain; a caller's creation date is ignored")
    func datesAreSetByTheKeychain() throws {
        try TemporaryKeychain.run { _ in
            let before = Date()
            let past = Date(timeIntervalSince1970: 0)
            let item = newGenericPassword(
                [kSecAttrCreationDate as String: past, kSecAttrModificationDate as String: past])
            #expect(add(item) == errSecSuccess)
            let stored = attributes(genericPassword())
            let created = try #require(stored?[kSecAttrCreationDate as String] as? Date)
            let modified = try #require(stored?[kSecAttrModificationDate as String] as? Date)
            #expect(created >= before.addingTimeInterval(-1))
            #expect(created == modified)
        }
    }

    @Test("Wrong value types in an add are errSecParam")
    func wrongValueTypesAreParam() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrAccount as String: Date()])) == errSecParam)
            #expect(add(merged(genericPassword(), [kSecValueData as String: "a string"])) == errSecParam)
            #expect(add(newGenericPassword([kSecAttrCreationDate as String: "yesterday"])) == errSecParam)
            #expect(add(merged(internetPassword(), [kSecAttrPort as String: Data([1])])) == errSecParam)
            #expect(add(newGenericPassword([kSecAttrAccessGroup as String: 42])) == errSecParam)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
            #expect(count([kSecClass as String: kSecClassInternetPassword]) == 0)
        }
    }

    @Test("An item without kSecValueData can be added (an add returns empty data); a data-only search finds it with no data")
    func itemWithoutData() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(merged(genericPassword(), [kSecReturnData as String: true]))
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data())
            let found = copyMatching(merged(genericPassword(), [kSecReturnData as String: true]))
            #expect(found.status == errSecSuccess)
            #expect(found.result == nil)
            #expect(count(genericPassword()) == 1)
        }
    }

    @Test("Empty data and empty strings are values like any other")
    func emptyValues() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(service: "", account: "", secret: "")) == errSecSuccess)
            #expect(secret(genericPassword(service: "", account: "")) == Data())
        }
    }

    // MARK: Size

    @Test("A 16 MiB secret, the least the store must hold, is stored and read back")
    func sixteenMebibyteSecret() throws {
        try TemporaryKeychain.run { _ in
            var big = Data(count: 16 << 20)
            big.withUnsafeMutableBytes { bytes in
                for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
            }
            #expect(add(merged(genericPassword(), [kSecValueData as String: big])) == errSecSuccess)
            #expect(secret(genericPassword()) == big)
        }
    }

    @Test("Values over the 64 MiB limit are errSecParam, never a crash")
    func oversizedValuesAreRefused() throws {
        try TemporaryKeychain.run { _ in
            let huge = Data(count: (64 << 20) + 1)
            #expect(add(merged(genericPassword(), [kSecValueData as String: huge])) == errSecParam)
            let account = String(repeating: "a", count: (64 << 20) + 1)
            #expect(add(newGenericPassword(account: account)) == errSecParam)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(update(genericPassword(), [kSecValueData as String: huge]) == errSecParam)
            #expect(update(genericPassword(), [kSecAttrLabel as String: account]) == errSecParam)
            #expect(secret(genericPassword()) == Data("secret".utf8))
        }
    }

    // MARK: Results of an add

    @Test("SecItemAdd with kSecReturnData returns the secret")
    func addReturnsData() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(newGenericPassword([kSecReturnData as String: true]))
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("secret".utf8))
        }
    }

    @Test("SecItemAdd with kSecReturnAttributes returns the stored attributes with Apple's short keys")
    func addReturnsAttributes() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(
                newGenericPassword([kSecReturnAttributes as String: true, kSecAttrLabel as String: "L"]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned["acct"] as? String == "user")
            #expect(returned["svce"] as? String == "com.example.service")
            #expect(returned["labl"] as? String == "L")
            #expect(returned["agrp"] as? String == "default")
            #expect(returned["pdmn"] as? String == "ak")
            #expect(number(returned["sync"]) == kCFBooleanFalse)
            #expect(returned["cdat"] is Date)
            #expect(returned["mdat"] is Date)
            #expect(returned[kSecValueData as String] == nil)
            // The result-only attributes a search returns too (`ResultShapeTests`).
            #expect(returned["tomb"] as? Int == 0)
            #expect(returned["musr"] as? Data == Data())
        }
    }

    @Test("SecItemAdd with kSecReturnPersistentRef returns a 20-byte reference that finds the item")
    func addReturnsPersistentReference() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(newGenericPassword([kSecReturnPersistentRef as String: true]))
            #expect(status == errSecSuccess)
            let reference = try #require(result as? Data)
            #expect(reference.count == 20)
            #expect(reference.prefix(4) == Data("genp".utf8))
            #expect(reference == persistentReference(genericPassword()))
        }
    }

    @Test("SecItemAdd with several kSecReturn… keys returns a dictionary of the parts")
    func addReturnsDictionary() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(newGenericPassword([
                kSecReturnData as String: true, kSecReturnAttributes as String: true,
                kSecReturnPersistentRef as String: true,
            ]))
            #expect(status == errSecSuccess)
            let returned = try #require(result as? [String: Any])
            #expect(returned[kSecValueData as String] as? Data == Data("secret".utf8))
            #expect((returned[kSecValuePersistentRef as String] as? Data)?.count == 20)
            #expect(returned[kSecAttrAccount as String] as? String == "user")
        }
    }

    @Test("SecItemAdd without kSecReturn… leaves the result nil; a failed add returns nothing")
    func addWithoutReturnKeys() throws {
        try TemporaryKeychain.run { _ in
            let (status, result) = addReturning(newGenericPassword())
            #expect(status == errSecSuccess)
            #expect(result == nil)
            let (duplicate, nothing) = addReturning(newGenericPassword([kSecReturnData as String: true]))
            #expect(duplicate == errSecDuplicateItem)
            #expect(nothing == nil)
        }
    }
}
