import Foundation
import Security
import Testing

/// The attributes and persistent reference `SecItemAdd` returns for `item`, and those a search by
/// that persistent reference returns afterwards, as comparable values.
private func addedAndFound(_ item: Query) throws -> (added: [String: AnyHashable], found: [String: AnyHashable]) {
    let returns: Query = [kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true]
    let (status, result) = addReturning(merged(item, returns))
    #expect(status == errSecSuccess)
    let added = try comparable(try #require(result as? [String: Any]))
    let reference = try #require(added[kSecValuePersistentRef as String] as? Data)
    let search = copyMatching(merged([kSecValuePersistentRef as String: reference], returns))
    #expect(search.status == errSecSuccess)
    return (added, try comparable(try #require(search.result as? [String: Any])))
}

/// A result dictionary with every value as `AnyHashable` (strings, data, numbers, dates and
/// `SecAccessControl`, which compares by value).
private func comparable(_ result: [String: Any]) throws -> [String: AnyHashable] {
    try result.mapValues { try #require($0 as? AnyHashable, "\(type(of: $0)) is not hashable") }
}

/// Checks that `added` and `found` are the same dictionary, and that it holds the result-only
/// attributes and the item's access control, derived from its accessibility when none was given.
private func expectSameShape(
    _ added: [String: AnyHashable], _ found: [String: AnyHashable], protection: CFString,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(Set(added.keys) == Set(found.keys), sourceLocation: sourceLocation)
    for (key, value) in found where added[key] != value {
        Issue.record("\(key): the add returned \(String(describing: added[key])), a search \(value)", sourceLocation: sourceLocation)
    }
    #expect(added["tomb"] == AnyHashable(0), sourceLocation: sourceLocation)
    #expect(added["musr"] == AnyHashable(Data()), sourceLocation: sourceLocation)
    let control = SecAccessControlCreateWithFlags(nil, protection, [], nil)!
    #expect(added[kSecAttrAccessControl as String] == AnyHashable(control), sourceLocation: sourceLocation)
}

@Suite("An add returning attributes returns what a search for the new item returns")
struct ResultShapeTests {
    /// An item of each class added by its attributes.
    enum ItemKind: String, CaseIterable, Sendable {
        case password, internetPassword, key, certificate

        var item: Query {
            switch self {
            case .password: return genericPassword()
            case .internetPassword: return SecurityTests.internetPassword()
            case .key: return keyItem()
            case .certificate: return certificateItem()
            }
        }

        /// The accessibility an item of the class gets when none is given.
        var defaultProtection: CFString { self == .certificate ? kSecAttrAccessibleAlways : kSecAttrAccessibleWhenUnlocked }
    }

    @Test(
        "Each class's add result has the search's attributes: tomb, musr and the default accc included",
        arguments: ItemKind.allCases
    )
    func addMatchesSearch(kind: ItemKind) throws {
        try TemporaryKeychain.run { _ in
            let (added, found) = try addedAndFound(merged(kind.item, [kSecValueData as String: Data("s".utf8)]))
            expectSameShape(added, found, protection: kind.defaultProtection)
        }
    }

    @Test("An add with an explicit accessibility returns the access control of that accessibility, as a search does")
    func explicitAccessibility() throws {
        try TemporaryKeychain.run { _ in
            let item = merged(genericPassword(), [
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock, kSecValueData as String: Data("s".utf8),
            ])
            let (added, found) = try addedAndFound(item)
            expectSameShape(added, found, protection: kSecAttrAccessibleAfterFirstUnlock)
        }
    }

    @Test("An add with an access control returns that access control, as a search does")
    func explicitAccessControl() throws {
        try TemporaryKeychain.run { _ in
            let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [], nil)!
            let item = merged(genericPassword(), [
                kSecAttrAccessControl as String: control, kSecValueData as String: Data("s".utf8),
            ])
            let (added, found) = try addedAndFound(item)
            expectSameShape(added, found, protection: kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
        }
    }

    @Test("A key added by reference returns the attributes a search for it returns")
    func keyByReference() throws {
        try TemporaryKeychain.run { _ in
            let key = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
            let (added, found) = try addedAndFound([kSecValueRef as String: key])
            expectSameShape(added, found, protection: kSecAttrAccessibleWhenUnlocked)
        }
    }

    @Test(
        "An identity added by reference returns the attributes a search for the identity returns",
        .enabled(if: OpenSSLCommand.path != nil)
    )
    func identityByReference() throws {
        try TemporaryKeychain.run { _ in
            let data = try IdentityReferenceTests.makePKCS12(try OpenSSLCommand(), legacy: false)
            let (_, items) = IdentityReferenceTests.importItems(data, password: "secret")
            let identity = try #require(items.first?[kSecImportItemIdentity as String] as? SecIdentity)
            let (added, found) = try addedAndFound([kSecValueRef as String: identity])
            // The identity's private key gives its access control (the certificate half's
            // accessibility is the certificate default).
            expectSameShape(added, found, protection: kSecAttrAccessibleWhenUnlocked)
        }
    }
}
