import Foundation

/// The four SecItem operations, which accept different dictionary keys.
public enum ItemOperation: Sendable {
    /// `SecItemAdd`.
    case add
    /// `SecItemCopyMatching`.
    case copyMatching
    /// `SecItemUpdate`'s search query.
    case update
    /// `SecItemDelete`.
    case delete
}

/// How many matches a search returns (`kSecMatchLimit`).
public enum MatchLimit: Equatable, Sendable {
    /// `kSecMatchLimitOne`, the default for `SecItemCopyMatching`: a single object, not an array.
    case one
    /// A number of items, returned as an array.
    case count(Int)
    /// `kSecMatchLimitAll`: every match, as an array.
    case all

    /// The most items to return; nil for no limit.
    var maximum: Int? {
        switch self {
        case .one: return 1
        case .count(let count): return max(count, 0)
        case .all: return nil
        }
    }
}

/// What a search or add returns (`kSecReturn…`).
public struct ReturnOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `kSecReturnData`.
    public static let data = ReturnOptions(rawValue: 1)
    /// `kSecReturnAttributes`.
    public static let attributes = ReturnOptions(rawValue: 2)
    /// `kSecReturnRef`.
    public static let reference = ReturnOptions(rawValue: 4)
    /// `kSecReturnPersistentRef`.
    public static let persistentReference = ReturnOptions(rawValue: 8)

    /// How many return kinds are requested; two or more give a dictionary per item.
    public var kindCount: Int { rawValue.nonzeroBitCount }
}

/// Which items a request's `kSecAttrSynchronizable` selects.
public enum SynchronizableFilter: Equatable, Sendable {
    /// Not mentioned: searches match both kinds, as `kSecAttrSynchronizableAny` does (the
    /// documented default; Apple's daemon adds `sync = 0`); adds create non-synchronizable items.
    case unspecified
    /// `kSecAttrSynchronizableAny`: both kinds; an add creates a non-synchronizable item.
    case any
    /// Exactly synchronizable (`true`) or not (`false`).
    case only(Bool)

    /// The value an add stores.
    var valueForAdd: Bool {
        if case .only(true) = self { return true }
        return false
    }

    /// Whether an item with `synchronizable` passes this filter.
    func admits(_ synchronizable: Bool) -> Bool {
        if case .only(let wanted) = self { return wanted == synchronizable }
        return true
    }
}

/// How `kSecUseAuthenticationUI` says to treat items that would need user interaction.
public enum AuthenticationUI: Sendable {
    /// `kSecUseAuthenticationUIAllow` (the default).
    case allow
    /// `kSecUseAuthenticationUIFail`.
    case fail
    /// `kSecUseAuthenticationUISkip` (`SecItemCopyMatching` only).
    case skip
}

/// A parsed, validated SecItem dictionary: an add's item, or a search's criteria.
public struct ItemRequest: Sendable {
    /// The item class (from `kSecClass` or the persistent reference).
    public var itemClass: ItemClass
    /// Attribute values, converted to their catalog kinds. Excludes `.synchronizable` (see
    /// `synchronizable`) and `.accessControl` (see `accessControl`).
    public var attributes = ItemAttributes()
    /// `kSecAttrAccessControl`.
    public var accessControl: AccessControlPolicy?
    /// `kSecAttrSynchronizable`.
    public var synchronizable: SynchronizableFilter = .unspecified
    /// `kSecValueData` (adds only; ignored in searches: the secret is never a search criterion).
    public var secret: Data?
    /// `kSecValuePersistentRef`.
    public var persistentReference: PersistentReference?
    /// The identity of an add by `kSecValueRef` = `SecIdentity` (stored as its certificate and
    /// its private key).
    public var identity: Identity?
    /// `kSecMatchLimit`; nil when absent.
    public var matchLimit: MatchLimit?
    /// `kSecReturn…`.
    public var returns: ReturnOptions = []
    /// `kSecMatchCaseInsensitive`: string attributes compare case-insensitively, as Apple documents
    /// it (its data-protection keychain ignores the key).
    public var caseInsensitive = false
    /// `kSecMatchHostOrSubdomainOfHost` (internet passwords).
    public var hostOrSubdomain: String?
    /// `kSecUseAuthenticationUI`.
    public var authenticationUI: AuthenticationUI = .allow
    /// The grant and application password brought to open items whose access control has
    /// constraints (`kSecUseAuthenticationContext`).
    public var authentication = ItemAuthentication()

    /// Creates an empty request for a class.
    public init(itemClass: ItemClass) { self.itemClass = itemClass }
}

/// The parsed `attributesToUpdate` dictionary of `SecItemUpdate`.
public struct ItemChanges: Sendable {
    /// New attribute values (excluding `.synchronizable` and `.accessControl`).
    public var attributes = ItemAttributes()
    /// A new access control.
    public var accessControl: AccessControlPolicy?
    /// A new synchronizable flag; nil leaves it unchanged.
    public var synchronizable: Bool?
    /// New secret data.
    public var secret: Data?

    /// Creates an empty change set.
    public init() {}

    /// Whether nothing would change.
    public var isEmpty: Bool {
        attributes.isEmpty && accessControl == nil && synchronizable == nil && secret == nil
    }
}
