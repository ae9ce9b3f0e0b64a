import Foundation
import KeychainCore

/// Classifies and validates the keys of a SecItem dictionary, as Apple's `query_applier` does,
/// except where Apple's documentation and its daemon disagree: then the documented rule holds
/// (README, "Where we differ from Apple's shipping behaviour, and why", lists each case).
package enum RequestParser {
    /// Search keys that have an effect or are validated; other `m_` keys are accepted and ignored,
    /// as Apple's data-protection keychain does.
    private static let certificateMatchKeys: Set<String> = ["m_Issuers", "m_Policy"]
    private static let certificateFilterKeys: Set<String> = [
        "m_ValidOnDate", "m_TrustedOnly", "m_EmailAddressIfPresent",
    ]
    /// Use keys that are accepted (client-side keys included).
    private static let useKeys: Set<String> = [
        "u_ItemList", "u_Tomb", "u_CredRef", "u_AuthUI", "u_OpPrompt", "u_NoAuthUI", "u_AuthCtx",
        "u_CallerName", "u_TokenRawItems", "u_CertWithIssuers", "u_Token",
    ]
    /// Apple refuses dictionaries with more non-attribute keys than this.
    private static let nonAttributeKeyLimit = 128

    /// Parses an add dictionary or a search query.
    ///
    /// - Throws: `errSecParam` for a malformed dictionary, `errSecNoSuchClass` for an unknown
    ///   class, `errSecUnimplemented` for search keys that need certificate trust.
    package static func parse(_ given: [String: RequestValue], for operation: ItemOperation) throws -> ItemRequest {
        try parse(RequestEntries(given), for: operation)
    }

    /// Parses an add dictionary or a search query given as its entries.
    ///
    /// - Throws: as `parse(_:for:)`.
    package static func parse(_ given: RequestEntries, for operation: ItemOperation) throws -> ItemRequest {
        var dictionary = given
        var identity: Identity?
        var keys = SpecialKeys(dictionary)
        if keys.hasReference {
            (dictionary, identity) = try mergingReference(given, for: operation)
            keys = SpecialKeys(dictionary)
        }
        var persistentReference: PersistentReference?
        if let value = keys.persistentReference {
            guard case .data(let data) = value else {
                throw KeychainError.param("kSecValuePersistentRef must be data")
            }
            persistentReference = try PersistentReference(data: data)
        }
        let itemClass = try resolveClass(keys.itemClass, persistentReference: persistentReference)
        var request = ItemRequest(itemClass: itemClass)
        request.persistentReference = operation == .add ? nil : persistentReference
        request.identity = operation == .add ? identity : nil
        var nonAttributeKeys = 0
        var matchKeys: [String] = []

        for (key, value) in dictionary {
            if key.utf8.count == 4 {
                if key == "nleg" { continue }  // kSecUseDataProtectionKeychain: accepted, ignored.
                try applyAttribute(key, value, to: &request)
                continue
            }
            nonAttributeKeys += 1
            // Classified by the first byte (a `Character` would be built for `key.first`).
            let bytes = key.utf8
            switch bytes.first {
            case UInt8(ascii: "c"):
                guard key == "class" else { throw KeychainError.param("unknown key \(key)") }
            case UInt8(ascii: "m"):
                guard bytes.dropFirst().first == UInt8(ascii: "_") else { throw KeychainError.param("unknown key \(key)") }
                matchKeys.append(key)
                try applyMatchKey(key, value, to: &request)
            case UInt8(ascii: "r"):
                try applyReturnKey(key, value, to: &request)
            case UInt8(ascii: "u"):
                try applyUseKey(key, value, operation: operation, to: &request)
            case UInt8(ascii: "v"):
                try applyValueKey(key, value, operation: operation, to: &request)
            case UInt8(ascii: "f"):
                continue
            default:
                throw KeychainError.param("unknown key \(key)")
            }
        }
        guard nonAttributeKeys <= nonAttributeKeyLimit else {
            throw KeychainError.param("too many keys in one dictionary")
        }

        normalizeIssuer(&request)
        switch operation {
        case .add:
            try inferKeyAttributes(&request)
            try validateAdd(matchKeys: matchKeys, hasItemList: keys.hasItemList)
        case .copyMatching:
            if keys.hasItemList { throw KeychainError.param("kSecUseItemList is not supported") }
            try validateSearchMatchKeys(request, matchKeys: matchKeys)
        case .update:
            if !matchKeys.isEmpty { throw KeychainError.param("kSecMatch… keys are not accepted by SecItemUpdate") }
            if !request.returns.isEmpty { throw KeychainError.param("kSecReturn… keys are not accepted by SecItemUpdate") }
            if keys.hasItemList { throw KeychainError.param("kSecUseItemList is not supported") }
        case .delete:
            // A delete always removes every match. `kSecMatchLimitAll` says exactly that, and code
            // written for macOS (whose `#else` branches run on Linux) passes it, so it is accepted;
            // any other search key is refused, as on iOS.
            let deletesAll = matchKeys == ["m_Limit"] && request.matchLimit == .all
            if !matchKeys.isEmpty && !deletesAll {
                throw KeychainError.param("kSecMatch… keys are not accepted by SecItemDelete")
            }
        }
        // What holds for every typed request, however it reached the engine, is checked once there.
        try request.validate(for: operation)
        return request
    }

    /// Parses `SecItemUpdate`'s `attributesToUpdate` for items of `itemClass`.
    ///
    /// Every key must be an attribute of the class or `kSecValueData` (else `errSecParam`);
    /// read-only and computed attributes are ignored.
    package static func parseChanges(_ dictionary: [String: RequestValue], for itemClass: ItemClass) throws -> ItemChanges {
        try parseChanges(RequestEntries(dictionary), for: itemClass)
    }

    /// Parses `SecItemUpdate`'s `attributesToUpdate` given as its entries.
    ///
    /// - Throws: as `parseChanges(_:for:)`.
    package static func parseChanges(_ dictionary: RequestEntries, for itemClass: ItemClass) throws -> ItemChanges {
        var changes = ItemChanges()
        for (key, value) in dictionary {
            if key == "v_Data" {
                guard case .data(let data) = value else { throw KeychainError.param("kSecValueData must be data") }
                guard data.count <= ItemRequest.maximumValueSize else {
                    throw KeychainError.param("kSecValueData is larger than the keychain accepts")
                }
                changes.secret = data
                continue
            }
            if key == "nleg" { continue }
            guard let attribute = AttributeCatalog.attribute(key, in: itemClass) else {
                throw KeychainError.param("\(key) cannot be changed by SecItemUpdate for \(itemClass.constantName)")
            }
            switch attribute.kind {
            case .synchronizable:
                if let flag = try AttributeCoercion.synchronizable(value) { changes.synchronizable = flag }
            case .accessControl:
                guard case .accessControl(let policy) = value else {
                    throw KeychainError.param("kSecAttrAccessControl must be a SecAccessControl")
                }
                changes.accessControl = policy
            default:
                let converted = try AttributeCoercion.coerce(value, for: attribute)
                if attribute.maintainer == .caller { changes.attributes[attribute] = converted }
            }
        }
        try changes.validate(for: itemClass)
        return changes
    }

    // MARK: - Keys

    /// The entries the parser reads before the others, found in one pass: `kSecValueRef`,
    /// `kSecValuePersistentRef`, `kSecClass` and `kSecUseItemList` (the first entry of each name,
    /// as a lookup by name finds).
    private struct SpecialKeys {
        var hasReference = false
        var persistentReference: RequestValue?
        var itemClass: RequestValue?
        var hasItemList = false

        init(_ entries: RequestEntries) {
            for (index, key) in entries.names.enumerated() {
                // Attribute names have four bytes; none of these names has four, and no other
                // text equals them as a Swift string (they hold no character with a canonical
                // equivalent outside ASCII).
                switch key.utf8.count {
                case 5:
                    if key == "v_Ref" {
                        hasReference = true
                    } else if key == "class" && itemClass == nil {
                        itemClass = entries.value(at: index)
                    }
                case 10 where key == "u_ItemList": hasItemList = true
                case 15 where key == "v_PersistentRef" && persistentReference == nil:
                    persistentReference = entries.value(at: index)
                default: continue
                }
            }
        }
    }

    private static func resolveClass(_ value: RequestValue?, persistentReference: PersistentReference?) throws -> ItemClass {
        guard let value else {
            if let persistentReference { return persistentReference.itemClass }
            throw KeychainError.param("kSecClass is missing")
        }
        guard case .string(let name) = value else { throw KeychainError.param("kSecClass must be a string") }
        guard let itemClass = ItemClass(rawValue: name) else {
            throw KeychainError(.noSuchClass, "kSecClass names no known class")
        }
        return itemClass
    }

    /// Applies a 4-character attribute key.
    private static func applyAttribute(_ key: String, _ value: RequestValue, to request: inout ItemRequest) throws {
        guard let attribute = AttributeCatalog.attribute(key, in: request.itemClass) else {
            throw KeychainError.param("\(key) is not an attribute of \(request.itemClass.constantName)")
        }
        switch attribute.kind {
        case .synchronizable:
            request.synchronizable = try AttributeCoercion.synchronizable(value).map(SynchronizableFilter.only) ?? .any
        case .accessControl:
            guard case .accessControl(let policy) = value else {
                throw KeychainError.param("kSecAttrAccessControl must be a SecAccessControl")
            }
            request.accessControl = policy
        default:
            request.attributes[attribute] = try AttributeCoercion.coerce(value, for: attribute)
        }
    }

    private static func applyMatchKey(_ key: String, _ value: RequestValue, to request: inout ItemRequest) throws {
        switch key {
        case "m_Limit":
            switch value {
            case .string("m_LimitOne"): request.matchLimit = .one
            case .string("m_LimitAll"): request.matchLimit = .all
            case .integer(1): request.matchLimit = .one  // Apple: only a limit of exactly one gives a bare object
            case .integer(let count): request.matchLimit = count < 0 ? .all : .count(Int(clamping: count))
            default: throw KeychainError.param("kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a number")
            }
        case "m_CaseInsensitive":
            guard let flag = value.flag else { throw KeychainError.param("kSecMatchCaseInsensitive must be a boolean") }
            request.caseInsensitive = flag
        case "m_HostOrSubdomainOfHost":
            guard case .string(let host) = value else {
                throw KeychainError.param("kSecMatchHostOrSubdomainOfHost must be a string")
            }
            request.hostOrSubdomain = host
        case "m_ValidOnDate":
            switch value {
            case .date, .null: break
            default: throw KeychainError.param("kSecMatchValidOnDate must be a date or null")
            }
        case "m_TrustedOnly":
            guard value.flag != nil else { throw KeychainError.param("kSecMatchTrustedOnly must be a boolean") }
        case "m_EmailAddressIfPresent":
            guard case .string = value else { throw KeychainError.param("kSecMatchEmailAddressIfPresent must be a string") }
        default:
            break
        }
    }

    private static func applyReturnKey(_ key: String, _ value: RequestValue, to request: inout ItemRequest) throws {
        let option: ReturnOptions
        switch key {
        case "r_Data": option = .data
        case "r_Attributes": option = .attributes
        case "r_Ref": option = .reference
        case "r_PersistentRef": option = .persistentReference
        default: throw KeychainError.param("unknown return key \(key)")
        }
        guard let flag = value.flag else { throw KeychainError.param("\(key) must be a boolean") }
        if flag { request.returns.insert(option) } else { request.returns.remove(option) }
    }

    private static func applyUseKey(
        _ key: String, _ value: RequestValue, operation: ItemOperation, to request: inout ItemRequest
    ) throws {
        guard useKeys.contains(key) else { throw KeychainError.param("unknown key \(key)") }
        switch key {
        case "u_AuthUI":
            switch value {
            case .string("u_AuthUIA"): request.authenticationUI = .allow
            case .string("u_AuthUIF"): request.authenticationUI = .fail
            case .string("u_AuthUIS"):
                guard operation == .copyMatching else {
                    throw KeychainError.param("kSecUseAuthenticationUISkip is only accepted by SecItemCopyMatching")
                }
                request.authenticationUI = .skip
            default: throw KeychainError.param("kSecUseAuthenticationUI has an unknown value")
            }
        case "u_NoAuthUI", "u_Tomb", "u_TokenRawItems", "u_CertWithIssuers":
            guard value.flag != nil else { throw KeychainError.param("\(key) must be a boolean") }
        case "u_OpPrompt", "u_CallerName":
            guard case .string = value else { throw KeychainError.param("\(key) must be a string") }
        case "u_CredRef":
            guard case .data = value else { throw KeychainError.param("\(key) must be data") }
        default:
            break
        }
    }

    private static func applyValueKey(
        _ key: String, _ value: RequestValue, operation: ItemOperation, to request: inout ItemRequest
    ) throws {
        switch key {
        case "v_Data":
            guard case .data(let data) = value else { throw KeychainError.param("kSecValueData must be data") }
            guard data.count <= ItemRequest.maximumValueSize else {
                throw KeychainError.param("kSecValueData is larger than the keychain accepts")
            }
            if operation == .add { request.secret = data }
        case "v_PersistentRef":
            break  // parsed before the class was resolved
        case "v_Ref":
            throw KeychainError.param("kSecValueRef must be a SecKey, SecCertificate or SecIdentity")  // merged earlier
        default:
            throw KeychainError.param("unknown key \(key)")
        }
    }

    // MARK: - Per-operation rules

    private static func validateAdd(matchKeys: [String], hasItemList: Bool) throws {
        if !matchKeys.isEmpty {
            // No search key in an add (Apple's daemon returns success and stores nothing).
            throw KeychainError.param("kSecMatch… keys are not accepted by SecItemAdd")
        }
        if hasItemList {
            throw KeychainError.param("kSecUseItemList is not accepted by SecItemAdd")
        }
    }

    private static func validateSearchMatchKeys(_ request: ItemRequest, matchKeys: [String]) throws {
        let certificateLike = request.itemClass == .certificate || request.itemClass == .identity
        for key in matchKeys {
            if certificateMatchKeys.contains(key) {
                throw KeychainError(
                    .unimplemented,
                    certificateLike ? "\(key) needs certificate trust evaluation, which is not implemented yet"
                        : "\(key) applies to certificates and identities only")
            }
            if certificateFilterKeys.contains(key) && certificateLike {
                throw KeychainError(.unimplemented, "\(key) needs certificate parsing, which is not implemented yet")
            }
        }
    }
}
