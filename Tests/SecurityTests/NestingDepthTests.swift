import Foundation
import KeychainCore
import Security
import Testing

/// The request dictionary's own nesting limit, as the engine states it.
private let limit = RequestValue.maximumNestingDepth

/// Request depths tried: shallow, the limit, one past it, the depth that overflowed the request
/// bridge's stack, and far beyond.
private let depths = [10, limit, limit + 1, 1_500, 100_000]

/// A secondary thread's stack on Apple platforms (512 KiB): the smallest a caller is likely to use.
private let secondaryThreadStack = 512 * 1024

/// What a call reports when its result contradicts its status (a result with a failure, or a
/// success without the stored secret).
private let contradictoryResult: OSStatus = -1

/// Every public function that takes a dictionary, each called with a nested value under a key it
/// ignores (`kSecUseDataProtectionKeychain`), so that a legal depth gets the function's ordinary
/// answer and only the depth can turn it into `errSecParam`.
enum DictionaryFunction: String, CaseIterable, Sendable {
    case secItemAdd = "SecItemAdd"
    case secItemAddComment = "SecItemAdd (as kSecAttrComment)"
    case secItemCopyMatching = "SecItemCopyMatching"
    case secItemUpdateQuery = "SecItemUpdate (query)"
    case secItemUpdateChanges = "SecItemUpdate (attributesToUpdate)"
    case secItemDelete = "SecItemDelete"
    case secKeyCreateRandomKey = "SecKeyCreateRandomKey"
    case secKeyGeneratePair = "SecKeyGeneratePair"
    case secKeyCreateWithData = "SecKeyCreateWithData"
    case secKeyCopyKeyExchangeResult = "SecKeyCopyKeyExchangeResult"
    case secPKCS12Import = "SecPKCS12Import"

    /// The status at a legal depth.
    var legalStatus: OSStatus {
        switch self {
        // A dictionary is not a comment at any depth.
        case .secItemAddComment: return errSecParam
        // The options are read; the bytes are not a PKCS#12 file.
        case .secPKCS12Import: return errSecDecode
        default: return errSecSuccess
        }
    }

    /// Calls the function with `value` in its dictionary; the status, or the `CFError`'s code.
    func call(with value: AnyObject, _ fixture: Fixture) -> OSStatus {
        let ignored = kSecUseDataProtectionKeychain as String
        switch self {
        case .secItemAdd:
            let status = add(newGenericPassword(account: "deep", [ignored: value]))
            if status == errSecSuccess { _ = delete(genericPassword(account: "deep")) }
            return status
        case .secItemAddComment:
            return add(newGenericPassword(account: "deep", [kSecAttrComment as String: value]))
        case .secItemCopyMatching:
            let (status, result) = copyMatching(merged(genericPassword(), [ignored: value, kSecReturnData as String: true]))
            if status == errSecSuccess && result as? Data != Data("kept".utf8) { return contradictoryResult }
            if status != errSecSuccess && result != nil { return contradictoryResult }
            return status
        case .secItemUpdateQuery:
            return update(merged(genericPassword(), [ignored: value]), [kSecAttrLabel as String: "changed"])
        case .secItemUpdateChanges:
            return update(genericPassword(), [kSecAttrLabel as String: "changed", ignored: value])
        case .secItemDelete:
            let status = delete(merged(genericPassword(account: "victim"), [ignored: value]))
            if status == errSecSuccess { _ = add(newGenericPassword(account: "victim")) }
            return status
        case .secKeyCreateRandomKey:
            return cfStatus { SecKeyCreateRandomKey(fixture.keyParameters(value), $0) }
        case .secKeyGeneratePair:
            var publicKey: SecKey?
            var privateKey: SecKey?
            return SecKeyGeneratePair(fixture.keyParameters(value), &publicKey, &privateKey)
        case .secKeyCreateWithData:
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass as String: kSecAttrKeyClassPublic, ignored: value,
            ]
            return cfStatus { SecKeyCreateWithData(fixture.publicKeyData as CFData, attributes as CFDictionary, $0) }
        case .secKeyCopyKeyExchangeResult:
            let parameters: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: 32, ignored: value]
            return cfStatus {
                SecKeyCopyKeyExchangeResult(
                    fixture.privateKey, .ecdhKeyExchangeStandardX963SHA256, fixture.peerKey, parameters as CFDictionary, $0)
            }
        case .secPKCS12Import:
            var items: CFArray?
            let options: [String: Any] = [kSecImportExportPassphrase as String: "secret", ignored: value]
            return SecPKCS12Import(Data("not a PKCS#12 file".utf8) as CFData, options as CFDictionary, &items)
        }
    }

    /// errSecSuccess when `body` returns an object, else its `CFError`'s code.
    private func cfStatus(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> AnyObject?) -> OSStatus {
        var error: Unmanaged<CFError>?
        if body(&error) != nil { return errSecSuccess }
        return OSStatus(error?.takeRetainedValue().code ?? Int(contradictoryResult))
    }
}

/// Keys and items every call may use, made once per test.
final class Fixture: @unchecked Sendable {
    let privateKey: SecKey
    let peerKey: SecKey
    let publicKeyData: Data

    init() throws {
        privateKey = try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        peerKey = SecKeyCopyPublicKey(try makeKey(kSecAttrKeyTypeECSECPrimeRandom, bits: 256))!
        publicKeyData = external(SecKeyCopyPublicKey(privateKey)!)
        #expect(add(newGenericPassword(secret: "kept")) == errSecSuccess)
        #expect(add(newGenericPassword(account: "victim")) == errSecSuccess)
    }

    /// Key-generation parameters (a key that is not stored) with `value` under an ignored key.
    func keyParameters(_ value: AnyObject) -> CFDictionary {
        [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecUseDataProtectionKeychain as String: value,
        ] as CFDictionary
    }

    /// Every generic password with its attributes (dates included) and secret.
    func storedItems() -> String {
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnAttributes as String: true, kSecReturnData as String: true,
        ])
        guard status == errSecSuccess, let rows = result as? [[String: Any]] else { return "status \(status)" }
        return rows.map { row in row.keys.sorted().map { "\($0)=\(row[$0]!)" }.joined(separator: ";") }.sorted()
            .joined(separator: "\n")
    }
}

@Suite("Nesting depth: a value nested past the limit is errSecParam in every function, never a crash")
struct NestingDepthTests {
    @Test("Every dictionary-taking function answers by depth, on the caller's thread and on a 512 KiB thread",
          arguments: DictionaryFunction.allCases)
    func depthLimit(function: DictionaryFunction) throws {
        try TemporaryKeychain.run { _ in
            let fixture = try Fixture()
            for kind in NestedValue.Kind.allCases {
                for depth in depths {
                    let expected = depth <= limit ? function.legalStatus : errSecParam
                    let before = fixture.storedItems()
                    let status = NestedValue(requestLevels: depth, kind: kind).use { function.call(with: $0, fixture) }
                    #expect(status == expected, "\(kind), \(depth) levels, caller's thread")
                    let onSmallStack = onThread(stackSize: secondaryThreadStack) {
                        NestedValue(requestLevels: depth, kind: kind).use { function.call(with: $0, fixture) }
                    }
                    #expect(onSmallStack == expected, "\(kind), \(depth) levels, 512 KiB thread")
                    if expected != errSecSuccess {
                        #expect(fixture.storedItems() == before, "\(kind), \(depth) levels changed what is stored")
                    }
                }
            }
        }
    }

    @Test("The limit counts the request dictionary: exactly the limit is accepted, one more level is not")
    func boundary() throws {
        try TemporaryKeychain.run { _ in
            _ = try Fixture()
            for kind in NestedValue.Kind.allCases {
                let query = genericPassword()
                let atLimit = NestedValue(requestLevels: limit, kind: kind).use { value in
                    copyMatching(merged(query, [kSecUseDataProtectionKeychain as String: value])).status
                }
                let pastLimit = NestedValue(requestLevels: limit + 1, kind: kind).use { value in
                    copyMatching(merged(query, [kSecUseDataProtectionKeychain as String: value])).status
                }
                #expect(atLimit == errSecSuccess)
                #expect(pastLimit == errSecParam)
            }
        }
    }

    @Test("A container that holds itself is errSecParam, not endless recursion")
    func cycles() throws {
        try TemporaryKeychain.run { _ in
            let fixture = try Fixture()
            let array = NSMutableArray()
            array.add(array)
            let dictionary = NSMutableDictionary()
            dictionary.setObject(dictionary, forKey: "self" as NSString)
            defer {
                array.removeAllObjects()
                dictionary.removeAllObjects()
            }
            for value in [array, dictionary] as [AnyObject] {
                #expect(add(newGenericPassword(account: "cycle", [kSecUseDataProtectionKeychain as String: value])) == errSecParam)
                #expect(copyMatching(merged(genericPassword(), [kSecUseDataProtectionKeychain as String: value])).status == errSecParam)
                let shared = Unchecked(value)
                let onSmallStack = onThread(stackSize: secondaryThreadStack) {
                    DictionaryFunction.secItemCopyMatching.call(with: shared.value, fixture)
                }
                #expect(onSmallStack == errSecParam)
            }
            #expect(count(genericPassword(account: "cycle")) == 0)
        }
    }

    @Test("A deeply nested access-control protection is errSecParam, on a 512 KiB thread too")
    func accessControlProtection() {
        for kind in NestedValue.Kind.allCases {
            for depth in depths {
                let status = onThread(stackSize: secondaryThreadStack) {
                    NestedValue(containers: depth, kind: kind).use { protection in
                        var error: Unmanaged<CFError>?
                        let control = SecAccessControlCreateWithFlags(nil, protection, .devicePasscode, &error)
                        return control == nil ? OSStatus(error?.takeRetainedValue().code ?? 0) : errSecSuccess
                    }
                }
                #expect(status == errSecParam, "\(kind), \(depth) levels")
            }
        }
    }

    /// An entitlements property list with `levels` nested arrays under a key the keychain ignores.
    static func entitlements(nestedArrays levels: Int) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>keychain-access-groups</key><array><string>com.example.deep</string></array>
        <key>com.example.ignored</key>\(String(repeating: "<array>", count: levels))\(String(repeating: "</array>", count: levels))
        </dict></plist>
        """
    }

    // In-process entitlements only: through keychaind the owner registers the file, and a file
    // that does not parse is refused then (EntitlementsCommandTests).
    @Test("An entitlements file nested too deeply to parse is errSecMissingEntitlement, not a crash",
          .enabled(if: !TestMode.throughDaemon), arguments: [10, 1_500, 100_000])
    func deepEntitlements(levels: Int) throws {
        try TemporaryKeychain.run { environment in
            try environment.useEntitlements(.propertyList(Self.entitlements(nestedArrays: levels)))
            // Foundation parses property lists up to a depth of its own (about 500 levels).
            let expected = levels < 500 ? errSecItemNotFound : errSecMissingEntitlement
            #expect(copyMatching(genericPassword()).status == expected)
            let onSmallStack = onThread(stackSize: secondaryThreadStack) { copyMatching(genericPassword()).status }
            #expect(onSmallStack == expected)
        }
    }

    @Test("Legal nesting written as Swift collections still reaches the engine unchanged")
    func swiftCollections() throws {
        try TemporaryKeychain.run { _ in
            _ = try Fixture()
            let nested: [String: Any] = ["a": [["b": [1, 2, ["c": Data([1])]]]]]
            #expect(copyMatching(merged(genericPassword(), [kSecUseDataProtectionKeychain as String: nested])).status == errSecSuccess)
            let parameters: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecPrivateKeyAttrs as String: [kSecAttrLabel as String: "nested label"],
            ]
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateRandomKey(parameters as CFDictionary, &error) != nil)
        }
    }
}
