import Foundation

/// The operations `SecKeyIsAlgorithmSupported` asks about, with Apple's raw values.
public enum KeyOperation: Int, Sendable {
    /// `kSecKeyOperationTypeSign`.
    case sign = 0
    /// `kSecKeyOperationTypeVerify`.
    case verify = 1
    /// `kSecKeyOperationTypeEncrypt`.
    case encrypt = 2
    /// `kSecKeyOperationTypeDecrypt`.
    case decrypt = 3
    /// `kSecKeyOperationTypeKeyExchange`.
    case keyExchange = 4
}

/// One `SecKeyAlgorithm`, decoded: the operation family, its digest and padding.
///
/// The table (`KeyAlgorithm.named`) maps Apple's algorithm strings (`SecKeyAdaptors.m`) to these
/// values; the operations read only the decoded form.
enum KeyAlgorithm: Hashable, Sendable {
    /// Whether a signature algorithm hashes its input first ("message") or takes a digest.
    enum Input: Hashable, Sendable {
        case digest
        case message
    }

    /// The two encodings of ECDSA signatures.
    enum ECDSAFormat: Hashable, Sendable {
        /// DER `SEQUENCE { INTEGER r, INTEGER s }`.
        case x962
        /// `r ‖ s`, each left-padded to the field size.
        case rfc4754
    }

    /// `algid:sign:RSA:raw`: the private-key operation on the zero-padded input.
    case rsaSignatureRaw
    /// RSA PKCS#1 v1.5; `digest` nil is `digest-PKCS1v15` (no `DigestInfo`).
    case rsaSignaturePKCS1v15(digest: DigestAlgorithm?, input: Input)
    /// RSA-PSS, MGF1 and salt length from the same digest.
    case rsaSignaturePSS(digest: DigestAlgorithm, input: Input)
    /// ECDSA; `digest` nil takes a digest of any length.
    case ecdsa(format: ECDSAFormat, digest: DigestAlgorithm?, input: Input)
    /// `algid:encrypt:RSA:raw`.
    case rsaEncryptionRaw
    /// RSA PKCS#1 v1.5 encryption.
    case rsaEncryptionPKCS1
    /// RSA-OAEP.
    case rsaEncryptionOAEP(DigestAlgorithm)
    /// RSA-OAEP wrapping a random AES key, AES-GCM over the data.
    case rsaEncryptionOAEPAESGCM(DigestAlgorithm)
    /// ECIES with X9.63 KDF and AES-GCM.
    case ecies(digest: DigestAlgorithm, cofactor: Bool, variableIV: Bool)
    /// ECDH, raw or with X9.63 KDF.
    case ecdh(cofactor: Bool, kdf: DigestAlgorithm?)

    /// The operations the algorithm is for.
    var operations: Set<KeyOperation> {
        switch self {
        case .rsaSignatureRaw, .rsaSignaturePKCS1v15, .rsaSignaturePSS, .ecdsa: return [.sign, .verify]
        case .rsaEncryptionRaw, .rsaEncryptionPKCS1, .rsaEncryptionOAEP, .rsaEncryptionOAEPAESGCM, .ecies:
            return [.encrypt, .decrypt]
        case .ecdh: return [.keyExchange]
        }
    }

    /// The key type the algorithm needs.
    var keyType: KeyType {
        switch self {
        case .ecdsa, .ecies, .ecdh: return .ellipticCurve
        default: return .rsa
        }
    }

    /// The algorithm named `name`, if Apple defines it.
    static func named(_ name: String) -> KeyAlgorithm? { table[name] }

    /// Every algorithm string, in Apple's declaration order (for documentation and tests).
    static let names: [String] = entries.map(\.0)

    private static let table: [String: KeyAlgorithm] = Dictionary(uniqueKeysWithValues: entries)

    private static let entries: [(String, KeyAlgorithm)] = {
        let sha = DigestAlgorithm.shaFamily
        var list: [(String, KeyAlgorithm)] = [("algid:sign:RSA:raw", .rsaSignatureRaw)]
        list.append(("algid:sign:RSA:digest-PKCS1v15", .rsaSignaturePKCS1v15(digest: nil, input: .digest)))
        for input in [Input.digest, .message] {
            let word = input == .digest ? "digest" : "message"
            for digest in [DigestAlgorithm.md5] + sha {
                list.append(("algid:sign:RSA:\(word)-PKCS1v15:\(digest.rawValue)", .rsaSignaturePKCS1v15(digest: digest, input: input)))
            }
            for digest in sha {
                // Apple's SHA-224 names say 24 (the salt is still 28 bytes, the digest length).
                let name = "\(digest.rawValue):\(digest.rawValue):\(digest == .sha224 ? 24 : digest.length)"
                list.append(("algid:sign:RSA:\(word)-PSS:\(name)", .rsaSignaturePSS(digest: digest, input: input)))
            }
        }
        list.append(("algid:sign:ECDSA:RFC4754", .ecdsa(format: .rfc4754, digest: nil, input: .digest)))
        list.append(("algid:sign:ECDSA:digest-X962", .ecdsa(format: .x962, digest: nil, input: .digest)))
        list.append(("algid:sign:ECDSA:digest-RFC4754", .ecdsa(format: .rfc4754, digest: nil, input: .digest)))
        for (format, label) in [(ECDSAFormat.x962, "X962"), (.rfc4754, "RFC4754")] {
            for input in [Input.digest, .message] {
                let word = input == .digest ? "digest" : "message"
                for digest in sha {
                    list.append(("algid:sign:ECDSA:\(word)-\(label):\(digest.rawValue)", .ecdsa(format: format, digest: digest, input: input)))
                }
            }
        }
        list.append(("algid:encrypt:RSA:raw", .rsaEncryptionRaw))
        list.append(("algid:encrypt:RSA:PKCS1", .rsaEncryptionPKCS1))
        for digest in sha { list.append(("algid:encrypt:RSA:OAEP:\(digest.rawValue)", .rsaEncryptionOAEP(digest))) }
        for digest in sha { list.append(("algid:encrypt:RSA:OAEP:\(digest.rawValue):AESGCM", .rsaEncryptionOAEPAESGCM(digest))) }
        for (cofactor, word) in [(false, "ECDH"), (true, "ECDHC")] {
            for digest in sha {
                list.append(("algid:encrypt:ECIES:\(word):KDFX963:\(digest.rawValue):AESGCM", .ecies(digest: digest, cofactor: cofactor, variableIV: false)))
            }
        }
        for (cofactor, word) in [(false, "ECDH"), (true, "ECDHC")] {
            for digest in sha.dropFirst() {
                list.append(("algid:encrypt:ECIES:\(word):KDFX963:\(digest.rawValue):AESGCM-KDFIV", .ecies(digest: digest, cofactor: cofactor, variableIV: true)))
            }
        }
        for (cofactor, word) in [(false, "ECDH"), (true, "ECDHC")] {
            list.append(("algid:keyexchange:\(word)", .ecdh(cofactor: cofactor, kdf: nil)))
            for digest in sha {
                list.append(("algid:keyexchange:\(word):KDFX963:\(digest.rawValue)", .ecdh(cofactor: cofactor, kdf: digest)))
            }
        }
        return list
    }()
}

/// Parameters of encryption and key exchange (`kSecKeyKeyExchangeParameter…`,
/// `kSecKeyEncryptionParameter…`).
public struct KeyOperationParameters: Sendable {
    /// `requestedSize`: the KDF output length in bytes (X9.63 key exchange).
    public var requestedSize: Int?
    /// `sharedInfo`: the KDF's SharedInfo.
    public var sharedInfo: Data?
    /// `symKeySize`: ECIES AES key size in bits.
    public var symmetricKeySizeInBits: Int?
    /// `aad`: additional authenticated data for ECIES.
    public var aad: Data?

    /// No parameters.
    public init() {}
}
