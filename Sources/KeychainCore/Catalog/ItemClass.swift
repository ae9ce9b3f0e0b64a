/// The keychain's item classes, by Apple's `kSecClass` value.
public enum ItemClass: String, CaseIterable, Sendable {
    /// `kSecClassGenericPassword`.
    case genericPassword = "genp"
    /// `kSecClassInternetPassword`.
    case internetPassword = "inet"
    /// `kSecClassCertificate`.
    case certificate = "cert"
    /// `kSecClassKey`.
    case key = "keys"
    /// `kSecClassIdentity`: not stored; a join of a certificate and a private key.
    case identity = "idnt"

    /// The class's bit in `AttributeDescriptor.classBits`.
    var bit: UInt8 {
        switch self {
        case .genericPassword: return 1
        case .internetPassword: return 2
        case .certificate: return 4
        case .key: return 8
        case .identity: return 16
        }
    }

    /// The class's position in `allCases`, which indexes per-class tables (a dictionary keyed by
    /// the class would hash its raw value's text on every lookup).
    var ordinal: Int { bit.trailingZeroBitCount }

    /// A table of one value per class, in `allCases` order, made by `value`.
    static func table<Value>(_ value: (ItemClass) -> Value) -> [Value] {
        allCases.enumerated().map { index, itemClass in
            precondition(itemClass.ordinal == index, "ItemClass.ordinal must follow allCases")
            return value(itemClass)
        }
    }

    /// The classes that have rows in the store.
    public static let stored: [ItemClass] = [.genericPassword, .internetPassword, .certificate, .key]

    /// Whether items of this class are rows in the store (every class but identity).
    public var isStored: Bool { self != .identity }

    /// Whether `kSecReturnRef` returns an object for items of this class (`SecKey`,
    /// `SecCertificate`, `SecIdentity`); passwords have no reference type, so `kSecReturnRef` on
    /// them succeeds with no object (as on iOS).
    public var hasReferenceType: Bool {
        self == .key || self == .certificate || self == .identity
    }

    /// The accessibility an add gets when it names none: `kSecAttrAccessibleWhenUnlocked`, and
    /// `kSecAttrAccessibleAlways` for certificates (as Apple's implementation does).
    public var defaultProtection: Protection {
        self == .certificate ? .always : .whenUnlocked
    }

    /// Apple's constant name, for messages.
    public var constantName: String {
        switch self {
        case .genericPassword: return "kSecClassGenericPassword"
        case .internetPassword: return "kSecClassInternetPassword"
        case .certificate: return "kSecClassCertificate"
        case .key: return "kSecClassKey"
        case .identity: return "kSecClassIdentity"
        }
    }
}
