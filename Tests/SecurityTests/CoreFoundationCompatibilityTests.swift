import Foundation
import Security
import Testing

@Suite("Core Foundation functions client code calls")
struct CoreFoundationCompatibilityTests {
    @Test("CFError accessors read the domain, code and user info of an access-control failure")
    func cfErrorAccessors() throws {
        var error: Unmanaged<CFError>?
        let control = SecAccessControlCreateWithFlags(
            kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, [.or, .and, .devicePasscode], &error)
        #expect(control == nil)
        let cfError = try #require(error?.takeRetainedValue())
        #expect(CFErrorGetDomain(cfError) as String == kCFErrorDomainOSStatus as String)
        #expect(CFErrorGetCode(cfError) == Int(errSecParam))
        #expect(CFErrorCopyUserInfo(cfError) != nil)
        #expect(!(CFErrorCopyDescription(cfError) as String).isEmpty)
    }

    @Test("SecAccessControlCreateFlags converts from CFOptionFlags as KeychainAccess does")
    func optionFlags() {
        let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(1 << 3))
        #expect(flags == .biometryCurrentSet)
    }

    @Test("SecRandomCopyBytes fills the buffer with fresh random bytes")
    func randomBytes() {
        var first = [UInt8](repeating: 0, count: 32)
        var second = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
        #expect(SecRandomCopyBytes(kSecRandomDefault, second.count, &second) == errSecSuccess)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
        #expect(SecRandomCopyBytes(kSecRandomDefault, 0, &first) == errSecSuccess)
    }
}
