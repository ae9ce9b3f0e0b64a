import Foundation
import Security
import Testing

/// The Core Foundation constants, spelled every way client code and the popular keychain
/// wrappers spell them. Apple imports them as implicitly unwrapped optionals (`CFBoolean!`), so
/// `kCFBooleanTrue` and `kCFBooleanTrue!` both compile there; this file compiling is half of
/// each test, the queries answering as they should is the other half.
@Suite("Core Foundation constants compile and work as Apple declares them")
struct CoreFoundationConstantTests {
    @Test("kCFBooleanTrue and kCFBooleanFalse are CFBooleans with and without !")
    func booleanSpellings() {
        let forced: CFBoolean = kCFBooleanTrue!
        let implicit: CFBoolean = kCFBooleanTrue
        let cast = kCFBooleanFalse as CFBoolean
        let optional: CFBoolean? = kCFBooleanFalse
        let anyValue: Any = kCFBooleanTrue!
        let object: AnyObject = kCFBooleanFalse
        #expect(forced == kCFBooleanTrue)
        #expect(implicit == kCFBooleanTrue!)
        #expect(cast == kCFBooleanFalse)
        #expect(optional == kCFBooleanFalse)
        #expect(kCFBooleanTrue != kCFBooleanFalse)
        #expect(forced.boolValue && !cast.boolValue)
        #expect(kCFBooleanTrue.boolValue)
        #expect(anyValue as? Bool == true)
        #expect(object as? CFBoolean == kCFBooleanFalse)
        #expect((kCFBooleanTrue as CFTypeRef) as? Bool == true)
    }

    @Test("Queries built as keychain-swift, KeychainAccess, SimpleKeychain, SwiftKeychainWrapper, Locksmith and Valet build them")
    func wrapperQueries() throws {
        try TemporaryKeychain.run { _ in
            // App code and wrappers: a literal with the forced spelling.
            let item: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "wrappers",
                kSecAttrAccount as String: "user", kSecValueData as String: Data("secret".utf8),
                kSecAttrSynchronizable as String: kCFBooleanFalse!,
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            let base = genericPassword(service: "wrappers")
            let secret = Data("secret".utf8)

            // keychain-swift, KeychainAccess, SimpleKeychain, SwiftKeychainWrapper: subscript
            // assignment without `!`.
            var query = base
            query[kSecReturnData as String] = kCFBooleanTrue
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            #expect(returnedData(query) == secret)

            // The same with the `!` a literal needs, and the ternaries wrappers write.
            let synchronizable = item[kSecAttrSynchronizable as String] as? Bool ?? true
            var forced = base
            forced[kSecReturnData as String] = kCFBooleanTrue!
            forced[kSecAttrSynchronizable as String] = synchronizable ? kCFBooleanTrue : kCFBooleanFalse
            #expect(returnedData(forced) == secret)
            forced[kSecAttrSynchronizable as String] = synchronizable ? kCFBooleanTrue! : kCFBooleanFalse!
            #expect(returnedData(forced) == secret)

            // Locksmith: `String(kSec…)` keys, two return flags.
            var locksmith = base
            locksmith[String(kSecReturnData)] = kCFBooleanTrue
            locksmith[String(kSecReturnAttributes)] = kCFBooleanTrue
            locksmith[String(kSecMatchLimit)] = kSecMatchLimitOne
            let (status, result) = copyMatching(locksmith)
            #expect(status == errSecSuccess)
            let row = try #require(result as? NSDictionary)
            #expect(row[String(kSecValueData)] as? NSData == secret as NSData)
            // Reading a returned boolean back: `as? CFBoolean` and comparison with the constant.
            #expect(row[kSecAttrSynchronizable as String] as? CFBoolean == kCFBooleanFalse)

            // CFString keys, as in `[kSecClass: …, kSecReturnData: kCFBooleanTrue!]`.
            let cfKeys: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrService: "wrappers", kSecAttrAccount: "user",
                kSecReturnData: kCFBooleanTrue!, kSecMatchLimit: kSecMatchLimitOne,
            ]
            var cfResult: CFTypeRef?
            #expect(SecItemCopyMatching(cfKeys as CFDictionary, &cfResult) == errSecSuccess)
            #expect(cfResult as? Data == secret)

            // Older SwiftKeychainWrapper: `[String: AnyObject]`.
            var objects: [String: AnyObject] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "wrappers" as NSString,
            ]
            objects[kSecReturnData as String] = kCFBooleanTrue
            var objectResult: CFTypeRef?
            #expect(SecItemCopyMatching(objects as CFDictionary, &objectResult) == errSecSuccess)
            #expect(objectResult as? Data == secret)

            // Valet: `[String: AnyHashable]`.
            var hashable: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "wrappers",
            ]
            hashable[kSecReturnData as String] = kCFBooleanTrue
            hashable[kSecMatchLimit as String] = kSecMatchLimitOne
            var hashableResult: CFTypeRef?
            #expect(SecItemCopyMatching(hashable as CFDictionary, &hashableResult) == errSecSuccess)
            #expect(hashableResult as? Data == secret)

            // `[key: kCFBooleanTrue]` in a literal compiles, with Apple's warning, to an optional
            // boxed in `Any`; written out so that this file stays free of warnings.
            #expect(returnedData(merged(base, [kSecReturnData as String: kCFBooleanTrue as Any])) == secret)
            #expect(count(merged(base, [kSecAttrSynchronizable as String: kCFBooleanTrue as Any])) == 0)
        }
    }

    /// The data `query` returns, or nil.
    private func returnedData(_ query: [String: Any]) -> Data? {
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? Data
    }

    @Test("kCFNull is a CFNull with and without !, and a null value is still errSecParam")
    func null() throws {
        let implicit: CFNull = kCFNull
        let forced: CFNull = kCFNull!
        #expect(implicit === forced)
        #expect(implicit == NSNull())
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword([kSecAttrLabel as String: kCFNull!])) == errSecParam)
            #expect(add(newGenericPassword([kSecAttrLabel as String: kCFNull as Any])) == errSecParam)
            #expect(count(genericPassword()) == 0)
        }
    }

    @Test("kCFAllocatorDefault is nil and goes wherever an allocator does")
    func allocator() {
        let allocator: CFAllocator? = kCFAllocatorDefault
        #expect(allocator == nil)
        #expect(kCFAllocatorDefault == nil)
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, [], nil) != nil)
        #expect(SecCertificateCreateWithData(kCFAllocatorDefault, Data([0x30, 0x00]) as CFData) == nil)
    }

    @Test("kCFErrorDomainOSStatus compares with an error's domain however it is spelled")
    func errorDomain() throws {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, "not a protection" as CFString, [], &error) == nil)
        let failure = try #require(error?.takeRetainedValue())
        let domain: CFErrorDomain = kCFErrorDomainOSStatus
        #expect(failure.domain == kCFErrorDomainOSStatus as String)
        #expect(failure.domain == domain as String)
        #expect(CFErrorGetDomain(failure) == kCFErrorDomainOSStatus)
        #expect(CFErrorGetDomain(failure) as String == kCFErrorDomainOSStatus! as String)
        #expect(failure.code == Int(errSecParam))
    }

    @Test("kSecRandomDefault is a SecRandomRef, as Apple declares it, and names the default generator")
    func randomDefault() {
        let generator: SecRandomRef = kSecRandomDefault
        var bytes = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(generator, bytes.count, &bytes) == errSecSuccess)
        #expect(bytes != [UInt8](repeating: 0, count: 32))
        #expect(SecRandomCopyBytes(nil, bytes.count, &bytes) == errSecSuccess)
    }

    @Test("The kSec constants are plain CFStrings, as Apple declares them")
    func secConstants() {
        let key: CFString = kSecClass
        let value: CFString = kSecClassGenericPassword
        let algorithm: SecKeyAlgorithm = .ecdsaSignatureMessageX962SHA256
        let parameter: SecKeyKeyExchangeParameter = kSecKeyKeyExchangeParameterRequestedSize
        #expect(key as String == "class")
        #expect(value as String == "genp")
        #expect(String(kSecAttrAccount) == "acct")
        #expect(algorithm == kSecKeyAlgorithmECDSASignatureMessageX962SHA256)
        #expect(parameter as String == "requestedSize")
    }
}
