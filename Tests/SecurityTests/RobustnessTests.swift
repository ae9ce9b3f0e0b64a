import Foundation
import Security
import Testing

/// The statuses the SecItem functions document; anything else would be a leak of an internal error.
private let documentedStatuses: Set<OSStatus> = [
    errSecSuccess, errSecParam, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchClass,
    errSecMissingEntitlement, errSecUnimplemented, errSecAuthFailed,
]

/// SplitMix64: a small deterministic generator, so every run tries the same dictionaries.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Builds random SecItem dictionaries from the constant set, junk keys and values of every type.
struct DictionaryFuzzer {
    var generator: SplitMix64

    static let constantKeys: [String] = [
        kSecClass, kSecAttrAccessible, kSecAttrAccessControl, kSecAttrAccessGroup, kSecAttrSynchronizable,
        kSecAttrCreationDate, kSecAttrModificationDate, kSecAttrDescription, kSecAttrComment, kSecAttrCreator,
        kSecAttrType, kSecAttrLabel, kSecAttrIsInvisible, kSecAttrIsNegative, kSecAttrAccount, kSecAttrService,
        kSecAttrGeneric, kSecAttrSecurityDomain, kSecAttrServer, kSecAttrProtocol, kSecAttrAuthenticationType,
        kSecAttrPort, kSecAttrPath, kSecAttrSubject, kSecAttrIssuer, kSecAttrSerialNumber, kSecAttrPublicKeyHash,
        kSecAttrCertificateType, kSecAttrKeyClass, kSecAttrApplicationLabel, kSecAttrApplicationTag,
        kSecAttrKeyType, kSecAttrKeySizeInBits, kSecAttrEffectiveKeySize, kSecAttrCanSign, kSecAttrTokenID,
        kSecAttrPersistentReference, kSecMatchLimit, kSecMatchCaseInsensitive, kSecMatchItemList,
        kSecMatchIssuers, kSecMatchPolicy, kSecMatchValidOnDate, kSecMatchHostOrSubdomainOfHost,
        kSecMatchTrustedOnly, kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef,
        kSecValueData, kSecValueRef, kSecValuePersistentRef, kSecUseItemList, kSecUseAuthenticationUI,
        kSecUseAuthenticationContext, kSecUseOperationPrompt, kSecUseDataProtectionKeychain,
        kSecUseNoAuthenticationUI, kSecUseKeychain,
    ].map { $0 as String }

    static let junkKeys: [String] = [
        "", "a", "zzzz", "ZZZZ", "m_Bogus", "r_Bogus", "u_Bogus", "v_Bogus", "f_callback", "classy", "c", "tomb",
        "musr", "clip", "éé", "acct\u{0}", String(repeating: "k", count: 300), "sha1", "v_Ref", "m_",
    ]

    static var constantValues: [Any] { [
        kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate, kSecClassIdentity,
        kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
        kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlock, kSecAttrSynchronizableAny,
        kSecMatchLimitOne, kSecMatchLimitAll, kSecAttrProtocolHTTPS, kSecAttrKeyTypeRSA, kSecAttrKeyClassPrivate,
        kSecUseAuthenticationUIFail, kSecUseAuthenticationUISkip, "protected", "fuzz", kCFBooleanTrue!, kCFBooleanFalse!,
        kCFNull!,
    ] }

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    mutating func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }

    mutating func string() -> String {
        switch below(6) {
        case 0: return ""
        case 1: return String(repeating: "x", count: 100_000)
        case 2: return "\u{0}\u{FFFF}é🔑"
        default:
            let length = below(12)
            return String((0..<length).map { _ in Character(UnicodeScalar(UInt8(97 + below(26)))) })
        }
    }

    mutating func data() -> Data {
        switch below(5) {
        case 0: return Data()
        case 1: return Data("genp".utf8) + Data((0..<16).map { _ in UInt8(below(256)) })
        case 2: return Data(count: 200_000)
        default: return Data((0..<below(40)).map { _ in UInt8(below(256)) })
        }
    }

    mutating func value(depth: Int = 0) -> Any {
        switch below(depth > 1 ? 10 : 13) {
        case 0: return string()
        case 1: return data()
        case 2: return [0, 1, -1, 5, Int.max, Int.min, 443][below(7)]
        case 3: return below(2) == 0
        case 4: return [0.5, Double.nan, Double.infinity, -0.0, 1e300][below(5)]
        case 5: return Date(timeIntervalSinceReferenceDate: Double(below(1_000_000_000)))
        case 6: return NSNull()
        case 7: return Self.constantValues[below(Self.constantValues.count)]
        case 8: return NSNumber(value: UInt64.max)
        case 9:
            let flags: [SecAccessControlCreateFlags] = [[], .userPresence, [.biometryAny, .or, .devicePasscode]]
            return SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags[below(3)], nil) as Any
        case 10: return (0..<below(4)).map { _ in value(depth: depth + 1) }
        case 11:
            var nested: [String: Any] = [:]
            for _ in 0..<below(4) { nested[key()] = value(depth: depth + 1) }
            return nested
        default:
            let dictionary = NSMutableDictionary()
            dictionary[NSNumber(value: below(10))] = value(depth: depth + 1)
            return dictionary
        }
    }

    mutating func key() -> String {
        below(5) == 0 ? Self.junkKeys[below(Self.junkKeys.count)] : Self.constantKeys[below(Self.constantKeys.count)]
    }

    /// A random dictionary; usually with a class, sometimes with a non-string key. Half of them
    /// start from a plausible item (or, for `attributesToUpdate`, a plausible change), so that
    /// random keys also reach the engine and not only the parser.
    mutating func dictionary(changes: Bool = false) -> NSDictionary {
        let dictionary = NSMutableDictionary()
        if below(2) == 0 {
            if changes {
                dictionary[kSecAttrLabel as String] = string()
            } else {
                dictionary[kSecClass as String] = kSecClassGenericPassword
                dictionary[kSecAttrService as String] = ["fuzz", "protected", "x"][below(3)]
                if below(2) == 0 { dictionary[kSecAttrAccount as String] = ["baseline", "a", ""][below(3)] }
                if below(2) == 0 { dictionary[kSecValueData as String] = data() }
            }
            for _ in 0..<(below(2) == 0 ? 0 : 1 + below(2)) { dictionary[key()] = value() }
        } else {
            if below(5) != 0 && !changes { dictionary[kSecClass as String] = Self.constantValues[below(5)] }
            for _ in 0..<below(7) { dictionary[key()] = value() }
        }
        if below(15) == 0 { dictionary[NSNumber(value: 42)] = value() }
        return dictionary
    }
}

/// Items stored before the fuzzing, in a group the fuzzed process lacks, and in its own group.
private struct Baseline {
    static var protectedItem: Query {
        newGenericPassword(service: "protected", account: "baseline", secret: "protected secret", [kSecAttrAccessGroup as String: "protected"])
    }
    static var ownItem: Query {
        newGenericPassword(service: "fuzz", account: "baseline", secret: "own secret", [kSecAttrAccessGroup as String: "fuzz"])
    }

    /// Everything about an item that must not change: its attributes (with dates) and its secret.
    static func snapshot(_ item: Query) -> String? {
        let query: Query = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: item[kSecAttrService as String]!,
            kSecAttrAccount as String: "baseline", kSecReturnAttributes as String: true, kSecReturnData as String: true,
        ]
        guard case (errSecSuccess, let result?) = copyMatching(query), let row = result as? [String: Any] else { return nil }
        return row.keys.sorted().map { "\($0)=\(row[$0]!)" }.joined(separator: ";")
    }
}

enum FuzzedFunction: String, CaseIterable, Sendable {
    case add = "SecItemAdd", copyMatching = "SecItemCopyMatching", update = "SecItemUpdate", delete = "SecItemDelete"
}

@Suite("Robustness: any dictionary gives a status, never a crash")
struct RobustnessTests {
    /// Dictionary keys of every kind, to receive `NSNull`.
    static let nullKeys: [String] = [
        "class", "acct", "svce", "labl", "gena", "desc", "pdmn", "accc", "agrp", "sync", "cdat", "crtr",
        "m_Limit", "m_CaseInsensitive", "r_Data", "r_Attributes", "r_PersistentRef", "v_Data", "v_PersistentRef",
        "v_Ref", "u_AuthUI", "u_OpPrompt", "nleg",
    ]

    @Test("NSNull for any key is errSecParam in every function (kSecUseDataProtectionKeychain is ignored)", arguments: nullKeys)
    func nullValues(key: String) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "kept")) == errSecSuccess)
            let expected = key == "nleg" ? errSecSuccess : errSecParam
            let item = merged(newGenericPassword(account: "new"), [key: NSNull()])
            let query = merged(genericPassword(account: "new"), [key: NSNull()])
            #expect(add(item) == expected)
            #expect(copyMatching(query).status == expected)
            #expect(update(merged(genericPassword(), [key: NSNull()]), [kSecAttrLabel as String: "x"]) == expected)
            #expect(update(genericPassword(), [key: NSNull()]) == (key == "nleg" ? errSecSuccess : errSecParam))
            #expect(delete(query) == expected)
            #expect(secret(genericPassword()) == Data("kept".utf8))
        }
    }

    @Test(
        "Values of the wrong type are errSecParam",
        arguments: [
            ("a date for kSecAttrAccount", kSecAttrAccount as String, Date() as any Sendable),
            ("a string for kSecValueData", kSecValueData as String, "secret"),
            ("an array for kSecAttrService", kSecAttrService as String, ["a", "b"]),
            ("a dictionary for kSecAttrLabel", kSecAttrLabel as String, ["k": "v"]),
            ("a number for kSecAttrAccessGroup", kSecAttrAccessGroup as String, 7),
            ("data for kSecAttrCreationDate", kSecAttrCreationDate as String, Data([1])),
            ("a date for kSecAttrPort", kSecAttrPort as String, Date()),
            ("a fraction for kSecAttrType", kSecAttrType as String, 1.5),
            ("a date for kSecReturnData", kSecReturnData as String, Date()),
            ("a number for kSecClass", kSecClass as String, 1),
            ("data for kSecClass", kSecClass as String, Data("genp".utf8)),
        ])
    func wrongTypes(name: String, key: String, value: any Sendable) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(merged(newGenericPassword(), [key: value])) == errSecParam)
            #expect(copyMatching(merged(genericPassword(), [key: value])).status == errSecParam)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
        }
    }

    @Test("A missing kSecClass is errSecParam; an unknown one errSecNoSuchClass")
    func classes() throws {
        try TemporaryKeychain.run { _ in
            let noClass: Query = [kSecAttrAccount as String: "a", kSecValueData as String: Data()]
            #expect(add(noClass) == errSecParam)
            #expect(copyMatching(noClass).status == errSecParam)
            #expect(update(noClass, [kSecAttrLabel as String: "x"]) == errSecParam)
            #expect(delete(noClass) == errSecParam)
            #expect(add([:]) == errSecParam)
            for unknown in ["bogus", "", "apls", "GENP"] {
                let query: Query = [kSecClass as String: unknown]
                #expect(add(query) == errSecNoSuchClass)
                #expect(copyMatching(query).status == errSecNoSuchClass)
                #expect(update(query, [kSecAttrLabel as String: "x"]) == errSecNoSuchClass)
                #expect(delete(query) == errSecNoSuchClass)
            }
        }
    }

    @Test(
        "Unknown keys are errSecParam",
        arguments: ["zzzz", "ACCT", "r_Bogus", "u_Bogus", "v_Bogus", "x_Bogus", "", "a", "kSecAttrAccount", "classy", "tomb"])
    func unknownKeys(key: String) throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "kept")) == errSecSuccess)
            #expect(add(merged(newGenericPassword(account: "new"), [key: "x"])) == errSecParam)
            #expect(copyMatching(merged(genericPassword(), [key: "x"])).status == errSecParam)
            #expect(update(merged(genericPassword(), [key: "x"]), [kSecAttrLabel as String: "x"]) == errSecParam)
            #expect(update(genericPassword(), [key: "x"]) == errSecParam)
            #expect(delete(merged(genericPassword(), [key: "x"])) == errSecParam)
            #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
            #expect(secret(genericPassword()) == Data("kept".utf8))
        }
    }

    @Test("Unknown kSecMatch… keys are ignored by searches (Apple) and refused by add and delete")
    func unknownMatchKeys() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword()) == errSecSuccess)
            #expect(copyMatching(merged(genericPassword(), ["m_Bogus": "x"])).status == errSecSuccess)
            #expect(copyMatching(merged(genericPassword(), [kSecMatchSubjectContains as String: "x"])).status == errSecSuccess)
            #expect(add(merged(newGenericPassword(account: "new"), ["m_Bogus": "x"])) == errSecParam)
            #expect(delete(merged(genericPassword(), ["m_Bogus": "x"])) == errSecParam)
            #expect(count(genericPassword()) == 1)
        }
    }

    @Test("A dictionary with non-string keys is errSecParam in every function")
    func nonStringKeys() throws {
        try TemporaryKeychain.run { _ in
            #expect(add(newGenericPassword(secret: "kept")) == errSecSuccess)
            let dictionary = NSMutableDictionary()
            for (key, value) in genericPassword() { dictionary[key] = value }
            dictionary[NSNumber(value: 1)] = "one"
            #expect(SecItemAdd(dictionary, nil) == errSecParam)
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(dictionary, &result) == errSecParam)
            #expect(result == nil)
            #expect(SecItemUpdate(dictionary, [kSecAttrLabel as String: "x"] as CFDictionary) == errSecParam)
            let changes = NSMutableDictionary()
            changes[NSNumber(value: 1)] = "x"
            #expect(SecItemUpdate(genericPassword() as CFDictionary, changes) == errSecParam)
            #expect(SecItemDelete(dictionary) == errSecParam)
            #expect(secret(genericPassword()) == Data("kept".utf8))
        }
    }

    @Test("Huge, empty and odd strings are ordinary values")
    func oddStrings() throws {
        try TemporaryKeychain.run { _ in
            let huge = String(repeating: "é", count: 1 << 20)
            let odd = "\u{0}nul\u{FEFF}bom🔑\u{10FFFF}"
            #expect(add(newGenericPassword(service: huge, account: "")) == errSecSuccess)
            #expect(add(newGenericPassword(service: odd, account: odd, secret: odd)) == errSecSuccess)
            #expect(count(genericPassword(service: huge, account: "")) == 1)
            #expect(secret(genericPassword(service: odd, account: odd)) == Data(odd.utf8))
            #expect(attributes(genericPassword(service: huge, account: ""))?[kSecAttrService as String] as? String == huge)
        }
    }

    @Test("Many keys in one dictionary give a status")
    func manyKeys() throws {
        try TemporaryKeychain.run { _ in
            var query = genericPassword()
            for index in 0..<200 { query["u_Key\(index)"] = true }
            #expect(add(query) == errSecParam)
            #expect(copyMatching(query).status == errSecParam)
        }
    }

    @Test("Random dictionaries give documented statuses and leave stored items intact", arguments: FuzzedFunction.allCases)
    func randomDictionaries(function: FuzzedFunction) throws {
        try TemporaryKeychain.run(entitlements: .accessGroups("protected", "fuzz")) { environment in
            #expect(add(Baseline.protectedItem) == errSecSuccess)
            #expect(add(Baseline.ownItem) == errSecSuccess)
            let protectedBefore = try #require(Baseline.snapshot(Baseline.protectedItem))
            let ownBefore = try #require(Baseline.snapshot(Baseline.ownItem))
            try environment.useEntitlements(.accessGroups("fuzz"))

            var fuzzer = DictionaryFuzzer(seed: 0x5EC1_7E00 + UInt64(FuzzedFunction.allCases.firstIndex(of: function)!))
            var statuses: [OSStatus: Int] = [:]
            for round in 0..<300 {
                let dictionary = fuzzer.dictionary()
                var result: CFTypeRef?
                let status: OSStatus
                switch function {
                case .add: status = round % 2 == 0 ? SecItemAdd(dictionary, &result) : SecItemAdd(dictionary, nil)
                case .copyMatching:
                    status = round % 3 == 0 ? SecItemCopyMatching(dictionary, nil) : SecItemCopyMatching(dictionary, &result)
                case .update: status = SecItemUpdate(dictionary, fuzzer.dictionary(changes: true))
                case .delete: status = SecItemDelete(dictionary)
                }
                statuses[status, default: 0] += 1
                #expect(documentedStatuses.contains(status), "round \(round): \(status)")
                if status != errSecSuccess { #expect(result == nil, "round \(round) failed but returned a result") }
            }
            // The dictionaries reached past validation, not only into errSecParam.
            #expect(statuses.count >= 3, "statuses seen: \(statuses)")

            try environment.useEntitlements(.accessGroups("protected", "fuzz"))
            #expect(Baseline.snapshot(Baseline.protectedItem) == protectedBefore)
            if function == .add || function == .copyMatching {
                #expect(Baseline.snapshot(Baseline.ownItem) == ownBefore)
            }
        }
    }
}
