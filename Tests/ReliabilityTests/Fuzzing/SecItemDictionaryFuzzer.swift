import Foundation

@testable import KeychainCore
@testable import Security

/// (a) SecItem dictionaries with random keys, value types and nesting.
///
/// Each input builds a Foundation dictionary (strings, data, booleans, integers of every width,
/// reals, dates, nulls, arrays, nested dictionaries, non-string keys, access-control objects,
/// chains of containers around and far past the nesting limit, containers that hold
/// themselves), bridges it as the SecItem functions do, parses it for all four operations and
/// as an update's changes for every class, and runs parsed searches on a small keychain.
/// Properties:
/// - nothing crashes; every failure is a `KeychainError` (which the surface reports as an `OSStatus`);
/// - a request nested past `RequestValue.maximumNestingDepth` (or holding itself) is
///   `errSecParam`, and one within the limit whose keys are strings bridges;
/// - a parsed add names only attributes its class has;
/// - a search's results bridge to CF objects;
/// - the keychain the searches run on opens and holds its items: an input that finds it missing
///   fails, so that a run whose keychain is broken cannot pass without its search checks.
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

    /// The nesting limit the bridge enforces (the request dictionary is level 1).
    static let limit = RequestValue.maximumNestingDepth

    /// How deep a chain of containers goes: around the limit, and far past it.
    static let chainLevels = [2, limit - 1, limit, limit + 1, limit + 2, 2 * limit, 1_500, 10_000]

    /// Where the keychain lives (removed when the process exits).
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-secitem-\(getpid())").path

    /// The generic and internet passwords the keychain holds.
    static let storedItems: [(ItemClass, String)] = [(.genericPassword, "s0"), (.internetPassword, "s1"), (.genericPassword, "s2")]

    /// A keychain with a few items, opened once per process; the reason when it cannot be opened
    /// or does not hold its items.
    static let keychain: Result<Keychain, FuzzFailure> = {
        atexit { try? FileManager.default.removeItem(atPath: SecItemDictionaryFuzzer.directory) }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let keychain = try Keychain.open(path: directory + "/fuzz.keychain-db")
            for (index, (itemClass, server)) in storedItems.enumerated() {
                var request = ItemRequest(itemClass: itemClass)
                request.attributes = ["acct": .string("a"), "labl": .string("l\(index)")]
                request.attributes[itemClass == .genericPassword ? "svce" : "srvr"] = .string(server)
                request.secret = Data("secret-\(index)".utf8)
                _ = try keychain.add(request, context: context)
            }
            for itemClass in [ItemClass.genericPassword, .internetPassword] {
                var search = ItemRequest(itemClass: itemClass)
                search.matchLimit = .all
                let found = try keychain.search(search, context: context).count
                let stored = storedItems.filter { $0.0 == itemClass }.count
                guard found == stored else {
                    return .failure(FuzzFailure("the fuzz keychain holds \(found) of its \(stored) \(itemClass) items"))
                }
            }
            return .success(keychain)
        } catch {
            return .failure(FuzzFailure("the fuzz keychain could not be opened or filled: \(error)"))
        }
    }()

    static let context = AccessContext(accessGroups: ["fuzz", "*"])

    static func run(_ input: inout FuzzInput) throws {
        let keychain = try keychain.get()
        var built = Built()
        defer { built.dismantle() }
        let dictionary = NSMutableDictionary()
        built.containers.append(dictionary)
        var stringKeys = true
        var used: Set<AnyHashable> = []
        for _ in 0..<input.below(10) {
            let key: AnyHashable
            if input.below(16) == 0 {
                key = AnyHashable(NSNumber(value: input.below(4)))
            } else {
                key = AnyHashable(input.text(keys, maximum: 12))
            }
            // A key given twice would replace its value, and with it what `built` recorded.
            guard used.insert(key).inserted else { continue }
            if key.base is NSNumber { stringKeys = false }
            dictionary.setObject(value(&input, level: 2, &built), forKey: key)
        }
        if input.below(16) == 0 {
            // The request dictionary inside itself (under a key of its own: replacing a value
            // would leave `built` describing what is no longer there).
            var name = "self"
            while used.contains(AnyHashable(name)) { name += "+" }
            dictionary.setObject(dictionary, forKey: name as NSString)
            built.holdsItself = true
        }
        let tooDeep = built.holdsItself || built.deepestLevel > limit
        let entries: RequestEntries
        do {
            entries = try RequestBridge.dictionary(dictionary)
        } catch let error as KeychainError {
            if !tooDeep && stringKeys {
                throw FuzzFailure("a request \(built.deepestLevel) levels deep with string keys was refused: \(error)")
            }
            let status = StatusMapping.status(for: error)
            if status != errSecParam { throw FuzzFailure("a malformed request gave \(status), not errSecParam") }
            return
        }
        if tooDeep {
            throw FuzzFailure("a request \(built.holdsItself ? "holding itself" : "\(built.deepestLevel) levels deep") was accepted")
        }
        for operation in [ItemOperation.add, .copyMatching, .update, .delete] {
            do {
                let request = try RequestParser.parse(entries, for: operation)
                if operation == .add {
                    for name in request.attributes.keys where AttributeCatalog.attribute(name.name, in: request.itemClass) == nil {
                        throw FuzzFailure("an add for \(request.itemClass) was parsed with attribute \(name.name)")
                    }
                }
                if operation == .copyMatching { try search(request, in: keychain) }
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

    private static func search(_ request: ItemRequest, in keychain: Keychain) throws {
        guard request.persistentReference == nil || request.itemClass != .identity else { return }
        let results = try keychain.search(request, context: context)
        _ = ResultBridge.object(results, returns: request.returns, limit: request.matchLimit ?? .one)
    }

    /// What one input built: every container (so that it can be taken apart one level at a time,
    /// which also breaks a container that holds itself), the deepest nesting level reached, and
    /// whether a container holds itself.
    struct Built {
        var containers: [AnyObject] = []
        var deepestLevel = 1
        var holdsItself = false

        /// Empties every container while `containers` still holds them all, so that releasing
        /// them frees one level at a time (a long chain released from the top would recurse
        /// once per level) and no cycle survives.
        mutating func dismantle() {
            for container in containers {
                (container as? NSMutableArray)?.removeAllObjects()
                (container as? NSMutableDictionary)?.removeAllObjects()
            }
            containers.removeAll()
        }
    }

    /// A value of a random Foundation type, to be stored at nesting `level` (a container there is
    /// at that level; the request dictionary is level 1).
    static func value(_ input: inout FuzzInput, level: Int, _ built: inout Built) -> Any {
        switch input.below(level < 5 ? 16 : 11) {
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
            let array = NSMutableArray()
            built.enter(array, level: level)
            for _ in 0..<input.below(4) { array.add(value(&input, level: level + 1, &built)) }
            return array
        case 12:
            let nested = NSMutableDictionary()
            built.enter(nested, level: level)
            var used: Set<String> = []
            for _ in 0..<input.below(4) {
                let key = input.text(keys, maximum: 8)
                guard used.insert(key).inserted else { continue }
                nested.setObject(value(&input, level: level + 1, &built), forKey: key as NSString)
            }
            return nested
        case 13, 14:
            return chain(&input, level: level, &built)
        default:
            return NSObject()
        }
    }

    /// A chain of arrays and dictionaries, each holding the next, from `level` down to a depth
    /// around or far past the limit (built one level at a time); the innermost holds a random
    /// value, or the chain's outermost container (a container that holds itself).
    static func chain(_ input: inout FuzzInput, level: Int, _ built: inout Built) -> AnyObject {
        let deepest = max(input.pick(chainLevels), level)
        let pattern = input.byte()
        let innermost = value(&input, level: deepest + 1, &built)
        var inner: AnyObject = innermost as AnyObject
        var innermostContainer: AnyObject?
        for current in stride(from: deepest, through: level, by: -1) {
            let container: AnyObject
            if pattern & (1 << (current % 8)) == 0 {
                let array = NSMutableArray()
                array.add(inner)
                container = array
            } else {
                let dictionary = NSMutableDictionary()
                dictionary.setObject(inner, forKey: input.text(keys, maximum: 8) as NSString)
                container = dictionary
            }
            if innermostContainer == nil { innermostContainer = container }
            built.enter(container, level: current)
            inner = container
        }
        if input.below(8) == 0, let innermostContainer {
            (innermostContainer as? NSMutableArray)?.add(inner)
            (innermostContainer as? NSMutableDictionary)?.setObject(inner, forKey: "loop" as NSString)
            built.holdsItself = true
        }
        return inner
    }
}

extension SecItemDictionaryFuzzer.Built {
    /// Records `container`, created at nesting `level`.
    mutating func enter(_ container: AnyObject, level: Int) {
        containers.append(container)
        deepestLevel = max(deepestLevel, level)
    }
}
