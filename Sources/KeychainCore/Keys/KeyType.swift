/// A key's algorithm family, with Apple's `kSecAttrKeyType` numbers.
public enum KeyType: Int64, Sendable, Hashable {
    /// `kSecAttrKeyTypeRSA` ("42").
    case rsa = 42
    /// `kSecAttrKeyTypeECSECPrimeRandom` / `kSecAttrKeyTypeEC` ("73").
    case ellipticCurve = 73

    /// Reads a `kSecAttrKeyType` value: a number or a numeric string.
    public init?(attribute value: AttributeValue) {
        switch value {
        case .integer(let number): self.init(rawValue: number)
        case .string(let text): self.init(rawValue: Int64(text) ?? -1)
        default: return nil
        }
    }
}

/// A key's class, with Apple's `kSecAttrKeyClass` numbers.
public enum KeyClass: Int64, Sendable, Hashable {
    /// `kSecAttrKeyClassPublic` ("0").
    case `public` = 0
    /// `kSecAttrKeyClassPrivate` ("1").
    case `private` = 1
    /// `kSecAttrKeyClassSymmetric` ("2").
    case symmetric = 2

    /// Reads a `kSecAttrKeyClass` value: a number or a numeric string.
    public init?(attribute value: AttributeValue) {
        switch value {
        case .integer(let number): self.init(rawValue: number)
        case .string(let text): self.init(rawValue: Int64(text) ?? -1)
        default: return nil
        }
    }
}

/// The NIST prime curves Apple's `kSecAttrKeyTypeECSECPrimeRandom` keys use, by size.
public enum ECCurve: Int, Sendable, Hashable, CaseIterable {
    /// P-192.
    case p192 = 192
    /// P-224.
    case p224 = 224
    /// P-256.
    case p256 = 256
    /// P-384.
    case p384 = 384
    /// P-521.
    case p521 = 521

    /// OpenSSL's group name.
    var groupName: String {
        switch self {
        case .p192: return "prime192v1"
        case .p224: return "secp224r1"
        case .p256: return "prime256v1"
        case .p384: return "secp384r1"
        case .p521: return "secp521r1"
        }
    }

    /// The curve with OpenSSL's group name `name`.
    init?(groupName name: String) {
        guard let curve = Self.allCases.first(where: { $0.groupName == name }) else { return nil }
        self = curve
    }

    /// The field size in bytes (the length of X, Y and the private scalar).
    public var fieldSize: Int { (rawValue + 7) / 8 }

    /// The curve whose uncompressed points (`04 ‖ X ‖ Y`) are `length` bytes long.
    static func forPublicLength(_ length: Int) -> ECCurve? {
        allCases.first { 1 + 2 * $0.fieldSize == length }
    }

    /// The curve whose private representations (`04 ‖ X ‖ Y ‖ K`) are `length` bytes long.
    static func forPrivateLength(_ length: Int) -> ECCurve? {
        allCases.first { 1 + 3 * $0.fieldSize == length }
    }
}
