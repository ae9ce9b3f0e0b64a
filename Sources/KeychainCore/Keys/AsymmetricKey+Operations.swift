import Foundation
import KeychainCrypto

/// `SecKeyCreateSignature`, `SecKeyVerifySignature`, `SecKeyCreateEncryptedData`,
/// `SecKeyCreateDecryptedData`, `SecKeyCopyKeyExchangeResult` and `SecKeyIsAlgorithmSupported`,
/// with Apple's byte layouts (`SecKeyAdaptors.m`) and statuses (`SecKey.m`): an operation the key
/// does not support is `errSecParam`, a signature that does not match `errSecVerifyFailed`.
extension AsymmetricKey {
    /// Whether this key can run `algorithm` for `operation` (`SecKeyIsAlgorithmSupported`).
    public func supports(_ operation: KeyOperation, _ algorithm: String) -> Bool {
        (try? resolve(operation, algorithm)) != nil
    }

    /// Signs `data` (a message or digest, as the algorithm says).
    ///
    /// - Throws: `errSecParam` when the key does not support the algorithm or the input has the
    ///   wrong size for it.
    public func sign(_ algorithm: String, _ data: Data) throws -> Data {
        try requirePrivateHalf()
        return try withEngineErrors {
            let decoded = try resolve(.sign, algorithm)
            switch decoded {
            case .rsaSignatureRaw:
                let padded = try leftPadded(data, to: blockSize, algorithm: algorithm)
                return try padded.withUnsafeBytes { try backing.sign($0, padding: RSAPadding.none) }
            case .rsaSignaturePKCS1v15(let digest, let input):
                let value = try digestInput(data, digest: digest, input: input, algorithm: algorithm)
                if digest == nil, value.count > blockSize - 11 { throw KeychainError.param("RSAsign wrong input data length") }
                return try value.withUnsafeBytes { try backing.sign($0, padding: .pkcs1(digest: digest?.rawValue)) }
            case .rsaSignaturePSS(let digest, let input):
                let value = try digestInput(data, digest: digest, input: input, algorithm: algorithm)
                guard sizeInBits >= 2 * 8 * digest.length + 9 else {
                    throw KeychainError.param("\(algorithm): algorithm incompatible with \(sizeInBits) bit RSA key")
                }
                return try value.withUnsafeBytes { try backing.sign($0, padding: .pss(digest: digest.rawValue)) }
            case .ecdsa(let format, let digest, let input):
                let value = try digestInput(data, digest: digest, input: input, algorithm: algorithm)
                let der = try ecdsaSign(digest: value)
                guard format == .rfc4754 else { return der }
                guard let raw = ECDSASignatureFormat.raw(fromDER: der, fieldSize: blockSize) else {
                    throw KeychainError(.internal, "Wrong ECDSA X962 signature")
                }
                return raw
            default:
                throw notSupported(algorithm)
            }
        }
    }

    /// Verifies `signature` over `data`.
    ///
    /// - Throws: `errSecVerifyFailed` when the signature does not match (or is malformed);
    ///   `errSecParam` when the key does not support the algorithm or a digest has the wrong size.
    public func verify(_ algorithm: String, _ data: Data, signature: Data) throws {
        try withEngineErrors {
            let decoded = try resolve(.verify, algorithm)
            let valid: Bool
            switch decoded {
            case .rsaSignatureRaw:
                guard let recovered = try signature.withUnsafeBytes({ try backing.recoverRaw($0) }) else {
                    throw Self.rsaMismatch
                }
                valid = Data(recovered.drop { $0 == 0 }) == data
            case .rsaSignaturePKCS1v15(let digest, let input):
                let value = try digestInput(data, digest: digest, input: input, algorithm: algorithm)
                valid = try value.withUnsafeBytes { message in
                    try signature.withUnsafeBytes { try backing.verify(message, signature: $0, padding: .pkcs1(digest: digest?.rawValue)) }
                }
            case .rsaSignaturePSS(let digest, let input):
                let value = try digestInput(data, digest: digest, input: input, algorithm: algorithm)
                valid = try value.withUnsafeBytes { message in
                    try signature.withUnsafeBytes { try backing.verify(message, signature: $0, padding: .pss(digest: digest.rawValue)) }
                }
            case .ecdsa(let format, let digest, let input):
                let value = try digestInput(data, digest: digest, input: input, algorithm: algorithm)
                let der: Data
                if format == .rfc4754 {
                    guard let converted = ECDSASignatureFormat.der(fromRaw: signature, fieldSize: blockSize) else {
                        throw Self.ecMismatch
                    }
                    der = converted
                } else {
                    der = signature
                }
                valid = try value.withUnsafeBytes { message in
                    try der.withUnsafeBytes { try backing.verify(message, signature: $0, padding: nil) }
                }
            default:
                throw notSupported(algorithm)
            }
            guard valid else { throw type == .rsa ? Self.rsaMismatch : Self.ecMismatch }
        }
    }

    /// Encrypts `plaintext` with this public key.
    ///
    /// - Throws: `errSecParam` when the key does not support the algorithm or the plaintext
    ///   is too long for it.
    public func encrypt(_ algorithm: String, _ plaintext: Data, parameters: KeyOperationParameters = .init()) throws -> Data {
        return try withEngineErrors {
            switch try resolve(.encrypt, algorithm) {
            case .rsaEncryptionRaw:
                let padded = try leftPadded(plaintext, to: blockSize, algorithm: algorithm)
                return try padded.withUnsafeBytes { try backing.encrypt($0, padding: RSAPadding.none) }
            case .rsaEncryptionPKCS1:
                return try plaintext.withUnsafeBytes { try backing.encrypt($0, padding: .pkcs1(digest: nil)) }
            case .rsaEncryptionOAEP(let digest):
                return try plaintext.withUnsafeBytes { try backing.encrypt($0, padding: .oaep(digest: digest.rawValue)) }
            case .rsaEncryptionOAEPAESGCM(let digest):
                return try RSAAESGCM.encrypt(plaintext, key: self, digest: digest)
            case .ecies(let digest, _, let variableIV):
                return try ECIES.encrypt(plaintext, recipient: self, digest: digest, variableIV: variableIV, parameters: parameters)
            default:
                throw notSupported(algorithm)
            }
        }
    }

    /// Decrypts `ciphertext` with this private key.
    ///
    /// - Throws: `errSecParam` when the key does not support the algorithm or the ciphertext is
    ///   wrong (bad padding, failed authentication, too short).
    public func decrypt(_ algorithm: String, _ ciphertext: Data, parameters: KeyOperationParameters = .init()) throws -> SecureBytes {
        try requirePrivateHalf()
        return try withEngineErrors {
            switch try resolve(.decrypt, algorithm) {
            case .rsaEncryptionRaw:
                let padded = try leftPadded(ciphertext, to: blockSize, algorithm: algorithm)
                return try padded.withUnsafeBytes { try backing.decrypt($0, padding: RSAPadding.none) }
            case .rsaEncryptionPKCS1:
                return try ciphertext.withUnsafeBytes { try backing.decrypt($0, padding: .pkcs1(digest: nil)) }
            case .rsaEncryptionOAEP(let digest):
                return try ciphertext.withUnsafeBytes { try backing.decrypt($0, padding: .oaep(digest: digest.rawValue)) }
            case .rsaEncryptionOAEPAESGCM(let digest):
                return try RSAAESGCM.decrypt(ciphertext, key: self, digest: digest)
            case .ecies(let digest, _, let variableIV):
                return try ECIES.decrypt(ciphertext, key: self, digest: digest, variableIV: variableIV, parameters: parameters)
            default:
                throw notSupported(algorithm)
            }
        }
    }

    /// ECDH with `peer`'s public key; with an X9.63 algorithm the shared secret goes through
    /// the KDF (`requestedSize` is required, `sharedInfo` optional).
    ///
    /// - Throws: `errSecParam` for an unsupported algorithm, a peer of another curve, or a
    ///   missing `requestedSize`.
    public func keyExchange(_ algorithm: String, peer: AsymmetricKey, parameters: KeyOperationParameters) throws -> SecureBytes {
        try requirePrivateHalf()
        return try withEngineErrors {
            guard case .ecdh(_, let kdf) = try resolve(.keyExchange, algorithm) else { throw notSupported(algorithm) }
            guard peer.kind == kind else { throw KeychainError.param("ECpriv sharedsecret: bad public key") }
            let secret = try sharedSecret(with: peer)
            guard let kdf else { return secret }
            guard let size = parameters.requestedSize, size >= 0 else {
                throw KeychainError.param("kSecKeyKeyExchangeParameterRequestedSize is missing")
            }
            return try X963KDF.derive(digest: kdf, secret: secret, sharedInfo: parameters.sharedInfo ?? Data(), length: size)
        }
    }

    // MARK: - Helpers

    /// The decoded algorithm, if this key (type, class, size) supports it for `operation`.
    func resolve(_ operation: KeyOperation, _ algorithm: String) throws -> KeyAlgorithm {
        guard let decoded = KeyAlgorithm.named(algorithm), decoded.operations.contains(operation),
            decoded.keyType == type
        else { throw notSupported(algorithm) }
        let needsPrivate = operation == .sign || operation == .decrypt || operation == .keyExchange
        guard (keyClass == .private) == needsPrivate else { throw notSupported(algorithm) }
        switch decoded {
        case .rsaEncryptionPKCS1 where blockSize < 11:
            throw notSupported(algorithm)
        case .rsaEncryptionOAEP(let digest) where blockSize < 2 * digest.length + 2,
            .rsaEncryptionOAEPAESGCM(let digest) where blockSize < 2 * digest.length + 2:
            throw notSupported(algorithm)
        default:
            return decoded
        }
    }

    private func notSupported(_ algorithm: String) -> KeychainError {
        KeychainError.param("\(algorithm): algorithm not supported by the key")
    }

    private static let rsaMismatch = KeychainError(.verifyFailed, "RSA signature verification failed, no match")
    private static let ecMismatch = KeychainError(.verifyFailed, "EC signature verification failed, no match")

    /// The value a signature algorithm signs: the message's digest, or the caller's digest
    /// checked for length.
    private func digestInput(_ data: Data, digest: DigestAlgorithm?, input: KeyAlgorithm.Input, algorithm: String) throws -> Data {
        guard let digest else { return data }
        if input == .message { return try digest.hash(data) }
        guard data.count == digest.length else {
            throw KeychainError.param("bad digest size for signing with algorithm \(algorithm)")
        }
        return data
    }

    /// `data` left-padded with zeros to `length` bytes (Apple's big-endian integer inputs).
    private func leftPadded(_ data: Data, to length: Int, algorithm: String) throws -> Data {
        guard data.count <= length else { throw KeychainError.param("\(algorithm): input is longer than the key") }
        return Data(repeating: 0, count: length - data.count) + data
    }
}
