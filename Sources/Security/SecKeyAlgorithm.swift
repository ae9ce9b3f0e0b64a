import KeychainCore

/// A `SecKey` algorithm name (`SecKeyAlgorithm`), with Apple's string values (see
/// `SecKeyAlgorithm+Constants.swift`).
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
    /// The algorithm's string (`"algid:sign:ECDSA:message-X962:SHA256"`).
    public let rawValue: CFString
    /// Wraps an algorithm string.
    public init(rawValue: CFString) { self.rawValue = rawValue }
    public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool { lhs.rawValue.isEqual(rhs.rawValue) }
    public func hash(into hasher: inout Hasher) { hasher.combine(String(rawValue)) }
}

/// The operations `SecKeyIsAlgorithmSupported` asks about (Apple's raw values).
public enum SecKeyOperationType: Int32, Sendable {
    case sign = 0, verify = 1, encrypt = 2, decrypt = 3, keyExchange = 4

    var operation: KeyOperation {
        switch self {
        case .sign: return .sign
        case .verify: return .verify
        case .encrypt: return .encrypt
        case .decrypt: return .decrypt
        case .keyExchange: return .keyExchange
        }
    }
}

/// A key-exchange parameter name (`SecKeyKeyExchangeParameter`).
public typealias SecKeyKeyExchangeParameter = CFString

/// The KDF output length in bytes (`CFNumber`), required by the X9.63 key-exchange algorithms.
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: SecKeyKeyExchangeParameter = "requestedSize"
/// The KDF's SharedInfo (`CFData`), optional.
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: SecKeyKeyExchangeParameter = "sharedInfo"
/// ECIES: the AES key size in bits (`CFNumber`).
nonisolated(unsafe) public let kSecKeyEncryptionParameterSymmetricKeySizeInBits: CFString = "symKeySize"
/// ECIES: additional authenticated data for AES-GCM (`CFData`).
nonisolated(unsafe) public let kSecKeyEncryptionParameterSymmetricAAD: CFString = "aad"
