import Foundation

@testable import KeychainCore
@testable import Security

/// (a) SecItem dictionaries with random keys, value types and nesting.
///
/// Each input builds a Foundation dictionary (strings, data, booleans, integers of every width,
/// reals, dates, nulls, arrays, nested dictionaries, non-string keys, access-control objects),
/// bridges it as the SecItem functions do, parses it for all four operations and as an update's
/// changes for every class, and runs parsed searches on a small keychain. Properties:
/// - nothing crashes; every failure is a `KeychainError` (an `OSStatus`);
/// - a parsed add names only attributes its class has;
/// - a search's results bridge to CF objects.
enum SecItemDictionaryFuzzer {
    static let keys: [String] = {
        var keys = AttributeCatalog.attributes.map(\.name)
        keys += ["class", "v_Data", "v_PersistentRef", "v_Ref", "r_Data", "r_Attributes", "r_Ref",
                 "r_PersistentRef", "m_Limit", "m_CaseInsensitive", "m_HostOrSubdomainOfHost", "m_ValidOnDate",
                 "m_TrustedOnly", "m_EmailAddressIfPresent", "m_Issuers", "m_Policy", "u_AuthUI", "u_ItemList",
                 "u_NoAuthUI", "u_OpPrompt", "u_Tomb", "u_CredRef", "u_AuthCtx", "nleg", "f_x", "zzzz"]
        return keys
    }()

    static let strings: [String] = ItemClass.allCases.map(\.rawValue) + Protection.allCases.map(\.rawValue) + [
        "m_LimitOne", "m_LimitAll", "syna", "u_AuthUIA", "u_AuthUIF", "u_AuthUIS", "", "1", "-1", "0x10",
        "example.com", "http", "htps", "dflt", "a", "ü", "\u{0}",
    ]

    /// Where the keychain lives (removed when the process exits).
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-secitem-\(getpid())").path

    /// A keychain with a few items, opened once per process.
    static let keychain: Keychain? = {
        atexit { try? FileManager.default.removeItem(atPath: SecItemDictionaryFuzzer.directory) }
        guard let keychain = try? Keychain.open(path: directory + "/fuzz.keychain-db") else { return nil }
        for (index, itemClass) in [ItemClass.genericPassword, .internetPassword, .genericPassword].enumerated() {
            var request = ItemRequest(itemClass: itemClass)
            request.attributes = ["acct": .string("a"), "labl": .string("l\(index)")]
            request.attributes[itemClass == .genericPassword ? "svce" : "srvr"] = .string("s\(index)")
            request.secret = Data("secret-\(index)".utf8)
            _ = try? keychain.add(request, context: context)
        }
        return keychain
    }()

    static let context = AccessContext(accessGroups: ["fuzz", "*"])

    static func run(_ input: inout FuzzInput) throws {
        let dictionary = NSMutableDictionary()
        for _ in 0..<input.below(10) {
            let key: AnyHashable =
                input.below(16) == 0 ? AnyHashable(NSNumber(value: input.below(4))) : AnyHashable(input.text(keys, maximum: 12))
            dictionary.setObject(value(&input, depth: 0), forKey: key)
        }
        let entries: RequestEntries
        do {
            entries = try RequestBridge.dictionary(dictionary)
        } catch let error as KeychainError {
            _ = error.status
            return
        }
        for operation in [ItemOperation.add, .copyMatching, .update, .delete] {
            do {
                let request = try RequestParser.parse(entries, for: operation)
                if operation == .add {
                    for name in request.attributes.keys where AttributeCatalog.attribute(name, in: request.itemClass) == nil {
                        throw FuzzFailure("an add for \(request.itemClass) was parsed with attribute \(name)")
                    }
                }
                if operation == .copyMatching { try search(request) }
            } catch is KeychainError {
                continue
            }
        }
        for itemClass in ItemClass.allCases {
            do {
                _ = try RequestParser.parseChanges(entries, for: itemClass)
            } catch is KeychainError {
                continue
            }
        }
    }

    private static func search(_ request: ItemRequest) throws {
        guard let keychain, request.persistentReference == nil || request.itemClass != .identity else { return }
        let results = try keychain.search(request, context: context)
        _ = ResultBridge.object(results, returns: request.returns, limit: request.matchLimit ?? .one)
    }

    /// A value of a random Foundation type.
    static func value(_ input: inout FuzzInput, depth: Int) -> Any {
        switch input.below(depth < 3 ? 14 : 11) {
        case 0: return input.text(strings) as NSString
        case 1: return Data(input.blob())
        case 2: return NSNumber(value: input.bool())
        case 3: return NSNumber(value: input.pick([0, 1, -1, Int64.max, Int64.min, 65535, 443, input.int64()]))
        case 4: return NSNumber(value: UInt64(bitPattern: input.int64()))
        case 5: return NSNumber(value: input.pick([0.5, 1.0, -0.0, .nan, .infinity, 1e30, Double(bitPattern: UInt64(bitPattern: input.int64()))]))
        case 6: return NSNumber(value: Int8(truncatingIfNeeded: input.byte()))
        case 7: return Date(timeIntervalSinceReferenceDate: input.pick([0, -1e12, 1e12, .nan, Double(input.int64() % 4_000_000_000)]))
        case 8: return NSNull()
        case 9:
            // A persistent reference, well formed or nearly.
            var bytes = Array(input.pick(ItemClass.allCases).rawValue.utf8)
            bytes += input.bytes(input.pick([8, 16, 15, 17]))
            return Data(bytes)
        case 10:
            let protection = Protection(rawValue: input.pick(Protection.allCases.map(\.rawValue))) ?? .whenUnlocked
            guard let policy = try? AccessControlPolicy(
                protection: protection, flags: AccessControlPolicy.Flags(rawValue: UInt64(input.byte())))
            else { return NSNull() }
            return SecAccessControl(policy: policy)
        case 11:
            return (0..<input.below(4)).map { _ in value(&input, depth: depth + 1) } as NSArray
        case 12:
            let nested = NSMutableDictionary()
            for _ in 0..<input.below(4) {
                nested.setObject(value(&input, depth: depth + 1), forKey: input.text(keys, maximum: 8) as NSString)
            }
            return nested
        default:
            return NSObject()
        }
    }
}
