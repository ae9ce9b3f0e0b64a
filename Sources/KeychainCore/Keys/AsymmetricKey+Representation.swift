import Foundation
import KeychainCrypto

extension AsymmetricKey {
    /// Creates a key from Apple's external representation (`SecKeyCreateWithData`): for EC the
    /// ANSI X9.63 point `04 ‖ X ‖ Y`, followed by the scalar `K` for a private key (the curve is
    /// inferred from the length); for RSA PKCS#1 `RSAPublicKey` / `RSAPrivateKey` DER, and for
    /// RSA public keys also X.509 `SubjectPublicKeyInfo`.
    ///
    /// - Throws: `errSecParam` when the bytes are not a key of that type and class;
    ///   `errSecUnimplemented` for symmetric keys.
    public init(externalRepresentation data: Data, type: KeyType, keyClass: KeyClass) throws {
        if keyClass == .symmetric {
            throw KeychainError(.unimplemented, "Unsupported symmetric key type")
        }
        do {
            let key: EVPKey = try withEngineErrors { try data.withUnsafeBytes { bytes in
                switch (type, keyClass) {
                case (.ellipticCurve, .public):
                    guard let curve = ECCurve.forPublicLength(bytes.count), bytes.first == 0x04 else {
                        throw KeychainError.param("EC public key creation from data failed")
                    }
                    return try EVPKey.ec(group: curve.groupName, point: bytes, scalar: nil)
                case (.ellipticCurve, _):
                    guard let curve = ECCurve.forPrivateLength(bytes.count), bytes.first == 0x04 else {
                        throw KeychainError.param("EC private key creation from data failed")
                    }
                    let pointLength = 1 + 2 * curve.fieldSize
                    return try EVPKey.ec(
                        group: curve.groupName, point: UnsafeRawBufferPointer(rebasing: bytes[0..<pointLength]),
                        scalar: UnsafeRawBufferPointer(rebasing: bytes[pointLength...]))
                case (.rsa, .public):
                    if let key = try? EVPKey.rsaPublic(pkcs1: bytes) { return key }
                    let key = try EVPKey.subjectPublicKeyInfo(bytes)
                    guard key.isRSA else { throw KeychainError.param("RSA public key creation from data failed") }
                    return key
                case (.rsa, _):
                    return try EVPKey.rsaPrivate(pkcs1: bytes)
                }
            } }
            let created = try AsymmetricKey(key)
            guard created.keyClass == keyClass else { throw KeychainError.param("key data does not match kSecAttrKeyClass") }
            self = created
        } catch let error as KeychainError where error.code == .decode {
            throw KeychainError.param("\(type == .rsa ? "RSA" : "EC") key creation from data failed")
        }
    }

    /// An EC private key from its big-endian scalar alone (the public point is computed).
    ///
    /// - Throws: `errSecParam` when the scalar is not a valid private key of `curve`.
    public init(ecPrivateScalar scalar: Data, curve: ECCurve) throws {
        do {
            let key = try withEngineErrors { try scalar.withUnsafeBytes { try EVPKey.ec(group: curve.groupName, scalar: $0) } }
            try self.init(key)
        } catch let error as KeychainError where error.code == .decode {
            throw KeychainError.param("EC private key creation from data failed")
        }
    }

    /// Wraps a key read from a PKCS#12 file, a certificate or a PEM/DER import.
    init(importing key: EVPKey) throws {
        try self.init(key)
    }

    /// Apple's external representation (`SecKeyCopyExternalRepresentation`), in a buffer that
    /// is zeroed when released (it holds the private key for private keys).
    ///
    /// - Throws: `errSecUnimplemented` for a private key held by the TPM (it cannot leave it).
    public func externalRepresentation() throws -> SecureBytes {
        try requirePrivateHalf()
        if hardware != nil { throw Self.tokenExportRefusal }
        return try withEngineErrors {
            switch (kind, keyClass) {
            case (.rsa, .private):
                return try backing.rsaPrivatePKCS1()
            case (.ellipticCurve(let curve), .private):
                let scalar = try backing.ecScalar(length: curve.fieldSize)
                return SecureBytes(count: publicKeyBytes.count + scalar.count) { out in
                    publicKeyBytes.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                    scalar.withUnsafeBytes {
                        out.baseAddress!.advanced(by: publicKeyBytes.count).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
                    }
                }
            default:
                return SecureBytes(copying: publicKeyBytes)
            }
        }
    }

    /// The attributes Apple gives a software key (`SecKeyCopyAttributes`, used when the key is
    /// added by `kSecValueRef`), without `kSecValueData`; a TPM-held key also has its token ID
    /// and is sensitive and never extractable.
    public var itemAttributes: ItemAttributes {
        func flag(_ value: Bool) -> AttributeValue { .integer(value ? 1 : 0) }
        var attributes = softwareItemAttributes
        if hardware != nil {
            attributes[.tokenID] = .string(Self.secureEnclaveTokenID)
            attributes[.isSensitive] = flag(true)
            attributes[.wasAlwaysSensitive] = flag(true)
            attributes[.isExtractable] = flag(false)
            attributes[.wasNeverExtractable] = flag(true)
        }
        return attributes
    }

    private var softwareItemAttributes: ItemAttributes {
        let isPrivate = keyClass == .private
        let isRSA = type == .rsa
        func flag(_ value: Bool) -> AttributeValue { .integer(value ? 1 : 0) }
        return [
            .keyClass: .integer(keyClass.rawValue),
            .applicationLabel: .data(applicationLabel),
            .type: .integer(type.rawValue),
            .keySizeInBits: .integer(Int64(sizeInBits)),
            .effectiveKeySize: .integer(Int64(sizeInBits)),
            .isPermanent: flag(true), .isPrivate: flag(true), .isModifiable: flag(true),
            .isSensitive: flag(false), .wasAlwaysSensitive: flag(false), .isExtractable: flag(true), .wasNeverExtractable: flag(false),
            .canEncrypt: flag(!isPrivate), .canVerify: flag(!isPrivate), .canWrap: flag(!isPrivate),
            .canDecrypt: flag(isPrivate || isRSA), .canSign: flag(isPrivate), .canUnwrap: flag(isPrivate),
            .canDerive: flag(!isRSA && isPrivate),
            .canSignRecover: flag(false), .canVerifyRecover: flag(false),
        ]
    }

    /// PEM of the key: `PRIVATE KEY` (PKCS#8, encrypted when a passphrase is given) or
    /// `PUBLIC KEY`.
    public func pem(passphrase: String?) throws -> SecureBytes {
        try requirePrivateHalf()
        return try withEngineErrors {
            if hardware != nil { throw Self.tokenExportRefusal }
            if keyClass == .private { return try backing.privateKeyPEM(passphrase: passphrase) }
            return SecureBytes(copying: try backing.publicKeyPEM())
        }
    }

    /// Reads a key file: PEM (`PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`, `RSA PRIVATE KEY`,
    /// `EC PRIVATE KEY`, `PUBLIC KEY`) or DER (PKCS#8, traditional private keys,
    /// SubjectPublicKeyInfo).
    ///
    /// - Throws: `errSecUnknownFormat` when the bytes are none of these;
    ///   `errSecPassphraseRequired` for an encrypted key without a passphrase.
    public static func importing(_ data: Data, passphrase: String?) throws -> AsymmetricKey {
        let text = String(decoding: data.prefix(64 << 10), as: UTF8.self)
        do {
            return try withEngineErrors { try data.withUnsafeBytes { bytes in
                if text.contains("-----BEGIN PUBLIC KEY-----") {
                    return try AsymmetricKey(EVPKey.publicKeyPEM(bytes))
                }
                if text.contains("-----BEGIN") && text.contains("PRIVATE KEY-----") {
                    if text.contains("ENCRYPTED") && passphrase == nil {
                        throw KeychainError(.passphraseRequired, "the key is encrypted and no passphrase was given")
                    }
                    return try AsymmetricKey(EVPKey.privateKeyPEM(bytes, passphrase: passphrase))
                }
                if let key = try? EVPKey.privateKeyDER(bytes) { return try AsymmetricKey(key) }
                return try AsymmetricKey(EVPKey.subjectPublicKeyInfo(bytes))
            } }
        } catch let error as KeychainError where error.code == .decode {
            throw KeychainError(.unknownFormat, "the file is not a key in a known format")
        }
    }
}
