// Generated from Apple's algorithm list (SecKeyAdaptors.m); one entry per SecKeyAlgorithm.

/// Every `SecKeyAlgorithm`, with Apple's string values.
extension SecKeyAlgorithm {
    /// RSA raw signature: the private-key operation on the input, left-padded with zeros to the block size.
    public static let rsaSignatureRaw = SecKeyAlgorithm(rawValue: "algid:sign:RSA:raw")
    /// RSA PKCS#1 v1.5 signature of a digest without a DigestInfo prefix.
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15")
    /// RSA PKCS#1 v1.5 signature of a MD5 digest.
    public static let rsaSignatureDigestPKCS1v15MD5 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:MD5")
    /// RSA PKCS#1 v1.5 signature of a SHA1 digest.
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA1")
    /// RSA PKCS#1 v1.5 signature of a SHA224 digest.
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA224")
    /// RSA PKCS#1 v1.5 signature of a SHA256 digest.
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// RSA PKCS#1 v1.5 signature of a SHA384 digest.
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA384")
    /// RSA PKCS#1 v1.5 signature of a SHA512 digest.
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA512")
    /// RSA-PSS signature of a SHA1 digest (MGF1 with SHA1, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    /// RSA-PSS signature of a SHA224 digest (MGF1 with SHA224, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA224:SHA224:24")
    /// RSA-PSS signature of a SHA256 digest (MGF1 with SHA256, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    /// RSA-PSS signature of a SHA384 digest (MGF1 with SHA384, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    /// RSA-PSS signature of a SHA512 digest (MGF1 with SHA512, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    /// RSA PKCS#1 v1.5 signature of the MD5 digest of the message.
    public static let rsaSignatureMessagePKCS1v15MD5 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:MD5")
    /// RSA PKCS#1 v1.5 signature of the SHA1 digest of the message.
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA1")
    /// RSA PKCS#1 v1.5 signature of the SHA224 digest of the message.
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA224")
    /// RSA PKCS#1 v1.5 signature of the SHA256 digest of the message.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256")
    /// RSA PKCS#1 v1.5 signature of the SHA384 digest of the message.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA384")
    /// RSA PKCS#1 v1.5 signature of the SHA512 digest of the message.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA512")
    /// RSA-PSS signature of the SHA1 digest of the message (MGF1 with SHA1, salt as long as the digest).
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    /// RSA-PSS signature of the SHA224 digest of the message (MGF1 with SHA224, salt as long as the digest).
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA224:SHA224:24")
    /// RSA-PSS signature of the SHA256 digest of the message (MGF1 with SHA256, salt as long as the digest).
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    /// RSA-PSS signature of the SHA384 digest of the message (MGF1 with SHA384, salt as long as the digest).
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    /// RSA-PSS signature of the SHA512 digest of the message (MGF1 with SHA512, salt as long as the digest).
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:SHA512:SHA512:64")
    /// ECDSA signature of a digest of any length, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:RFC4754")
    /// ECDSA signature of a digest of any length, DER-encoded (X9.62).
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962")
    /// ECDSA signature of a SHA1 digest, DER-encoded (X9.62).
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA1")
    /// ECDSA signature of a SHA224 digest, DER-encoded (X9.62).
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA224")
    /// ECDSA signature of a SHA256 digest, DER-encoded (X9.62).
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA256")
    /// ECDSA signature of a SHA384 digest, DER-encoded (X9.62).
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA384")
    /// ECDSA signature of a SHA512 digest, DER-encoded (X9.62).
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA512")
    /// ECDSA signature of the SHA1 digest of the message, DER-encoded (X9.62).
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA1")
    /// ECDSA signature of the SHA224 digest of the message, DER-encoded (X9.62).
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA224")
    /// ECDSA signature of the SHA256 digest of the message, DER-encoded (X9.62).
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA signature of the SHA384 digest of the message, DER-encoded (X9.62).
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA384")
    /// ECDSA signature of the SHA512 digest of the message, DER-encoded (X9.62).
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA512")
    /// ECDSA signature of a digest of any length, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureDigestRFC4754 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754")
    /// ECDSA signature of a SHA1 digest, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA1")
    /// ECDSA signature of a SHA224 digest, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA224")
    /// ECDSA signature of a SHA256 digest, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA256")
    /// ECDSA signature of a SHA384 digest, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA384")
    /// ECDSA signature of a SHA512 digest, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA512")
    /// ECDSA signature of the SHA1 digest of the message, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA1")
    /// ECDSA signature of the SHA224 digest of the message, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA224")
    /// ECDSA signature of the SHA256 digest of the message, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA256")
    /// ECDSA signature of the SHA384 digest of the message, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA384")
    /// ECDSA signature of the SHA512 digest of the message, as r ‖ s (RFC 4754).
    public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-RFC4754:SHA512")
    /// RSA encryption without padding.
    public static let rsaEncryptionRaw = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:raw")
    /// RSA PKCS#1 v1.5 encryption.
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:PKCS1")
    /// RSA-OAEP encryption with SHA1 (and MGF1 with SHA1).
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA1")
    /// RSA-OAEP encryption with SHA224 (and MGF1 with SHA224).
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA224")
    /// RSA-OAEP encryption with SHA256 (and MGF1 with SHA256).
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA256")
    /// RSA-OAEP encryption with SHA384 (and MGF1 with SHA384).
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA384")
    /// RSA-OAEP encryption with SHA512 (and MGF1 with SHA512).
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA512")
    /// A random AES key wrapped with RSA-OAEP (SHA1), the data encrypted with AES-GCM: wrapped key ‖ ciphertext ‖ tag.
    public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA1:AESGCM")
    /// A random AES key wrapped with RSA-OAEP (SHA224), the data encrypted with AES-GCM: wrapped key ‖ ciphertext ‖ tag.
    public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA224:AESGCM")
    /// A random AES key wrapped with RSA-OAEP (SHA256), the data encrypted with AES-GCM: wrapped key ‖ ciphertext ‖ tag.
    public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA256:AESGCM")
    /// A random AES key wrapped with RSA-OAEP (SHA384), the data encrypted with AES-GCM: wrapped key ‖ ciphertext ‖ tag.
    public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA384:AESGCM")
    /// A random AES key wrapped with RSA-OAEP (SHA512), the data encrypted with AES-GCM: wrapped key ‖ ciphertext ‖ tag.
    public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA512:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA1, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA224, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA256, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA384, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA512, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA1, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA224, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA256, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA384, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA512, AES-GCM with a zero IV): ephemeral public key ‖ ciphertext ‖ tag.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// ECIES (standard ECDH, X9.63 KDF with SHA224 deriving key and IV, AES-GCM).
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES (standard ECDH, X9.63 KDF with SHA256 deriving key and IV, AES-GCM).
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES (standard ECDH, X9.63 KDF with SHA384 deriving key and IV, AES-GCM).
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES (standard ECDH, X9.63 KDF with SHA512 deriving key and IV, AES-GCM).
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA224 deriving key and IV, AES-GCM).
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA256 deriving key and IV, AES-GCM).
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA384 deriving key and IV, AES-GCM).
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES (cofactor ECDH, X9.63 KDF with SHA512 deriving key and IV, AES-GCM).
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")
    /// Standard ECDH: the raw shared secret (the x-coordinate).
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH")
    /// Standard ECDH followed by the ANSI X9.63 KDF with SHA1 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA1")
    /// Standard ECDH followed by the ANSI X9.63 KDF with SHA224 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA224")
    /// Standard ECDH followed by the ANSI X9.63 KDF with SHA256 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA256")
    /// Standard ECDH followed by the ANSI X9.63 KDF with SHA384 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA384")
    /// Standard ECDH followed by the ANSI X9.63 KDF with SHA512 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:SHA512")
    /// Cofactor ECDH: the raw shared secret (the x-coordinate).
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC")
    /// Cofactor ECDH followed by the ANSI X9.63 KDF with SHA1 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// Cofactor ECDH followed by the ANSI X9.63 KDF with SHA224 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// Cofactor ECDH followed by the ANSI X9.63 KDF with SHA256 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// Cofactor ECDH followed by the ANSI X9.63 KDF with SHA384 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// Cofactor ECDH followed by the ANSI X9.63 KDF with SHA512 (needs kSecKeyKeyExchangeParameterRequestedSize).
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA512")

    /// Every algorithm above, in Apple's order.
    public static let allAlgorithms: [SecKeyAlgorithm] = [
        .rsaSignatureRaw,
        .rsaSignatureDigestPKCS1v15Raw,
        .rsaSignatureDigestPKCS1v15MD5,
        .rsaSignatureDigestPKCS1v15SHA1,
        .rsaSignatureDigestPKCS1v15SHA224,
        .rsaSignatureDigestPKCS1v15SHA256,
        .rsaSignatureDigestPKCS1v15SHA384,
        .rsaSignatureDigestPKCS1v15SHA512,
        .rsaSignatureDigestPSSSHA1,
        .rsaSignatureDigestPSSSHA224,
        .rsaSignatureDigestPSSSHA256,
        .rsaSignatureDigestPSSSHA384,
        .rsaSignatureDigestPSSSHA512,
        .rsaSignatureMessagePKCS1v15MD5,
        .rsaSignatureMessagePKCS1v15SHA1,
        .rsaSignatureMessagePKCS1v15SHA224,
        .rsaSignatureMessagePKCS1v15SHA256,
        .rsaSignatureMessagePKCS1v15SHA384,
        .rsaSignatureMessagePKCS1v15SHA512,
        .rsaSignatureMessagePSSSHA1,
        .rsaSignatureMessagePSSSHA224,
        .rsaSignatureMessagePSSSHA256,
        .rsaSignatureMessagePSSSHA384,
        .rsaSignatureMessagePSSSHA512,
        .ecdsaSignatureRFC4754,
        .ecdsaSignatureDigestX962,
        .ecdsaSignatureDigestX962SHA1,
        .ecdsaSignatureDigestX962SHA224,
        .ecdsaSignatureDigestX962SHA256,
        .ecdsaSignatureDigestX962SHA384,
        .ecdsaSignatureDigestX962SHA512,
        .ecdsaSignatureMessageX962SHA1,
        .ecdsaSignatureMessageX962SHA224,
        .ecdsaSignatureMessageX962SHA256,
        .ecdsaSignatureMessageX962SHA384,
        .ecdsaSignatureMessageX962SHA512,
        .ecdsaSignatureDigestRFC4754,
        .ecdsaSignatureDigestRFC4754SHA1,
        .ecdsaSignatureDigestRFC4754SHA224,
        .ecdsaSignatureDigestRFC4754SHA256,
        .ecdsaSignatureDigestRFC4754SHA384,
        .ecdsaSignatureDigestRFC4754SHA512,
        .ecdsaSignatureMessageRFC4754SHA1,
        .ecdsaSignatureMessageRFC4754SHA224,
        .ecdsaSignatureMessageRFC4754SHA256,
        .ecdsaSignatureMessageRFC4754SHA384,
        .ecdsaSignatureMessageRFC4754SHA512,
        .rsaEncryptionRaw,
        .rsaEncryptionPKCS1,
        .rsaEncryptionOAEPSHA1,
        .rsaEncryptionOAEPSHA224,
        .rsaEncryptionOAEPSHA256,
        .rsaEncryptionOAEPSHA384,
        .rsaEncryptionOAEPSHA512,
        .rsaEncryptionOAEPSHA1AESGCM,
        .rsaEncryptionOAEPSHA224AESGCM,
        .rsaEncryptionOAEPSHA256AESGCM,
        .rsaEncryptionOAEPSHA384AESGCM,
        .rsaEncryptionOAEPSHA512AESGCM,
        .eciesEncryptionStandardX963SHA1AESGCM,
        .eciesEncryptionStandardX963SHA224AESGCM,
        .eciesEncryptionStandardX963SHA256AESGCM,
        .eciesEncryptionStandardX963SHA384AESGCM,
        .eciesEncryptionStandardX963SHA512AESGCM,
        .eciesEncryptionCofactorX963SHA1AESGCM,
        .eciesEncryptionCofactorX963SHA224AESGCM,
        .eciesEncryptionCofactorX963SHA256AESGCM,
        .eciesEncryptionCofactorX963SHA384AESGCM,
        .eciesEncryptionCofactorX963SHA512AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA224AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA384AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA512AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA224AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA384AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA512AESGCM,
        .ecdhKeyExchangeStandard,
        .ecdhKeyExchangeStandardX963SHA1,
        .ecdhKeyExchangeStandardX963SHA224,
        .ecdhKeyExchangeStandardX963SHA256,
        .ecdhKeyExchangeStandardX963SHA384,
        .ecdhKeyExchangeStandardX963SHA512,
        .ecdhKeyExchangeCofactor,
        .ecdhKeyExchangeCofactorX963SHA1,
        .ecdhKeyExchangeCofactorX963SHA224,
        .ecdhKeyExchangeCofactorX963SHA256,
        .ecdhKeyExchangeCofactorX963SHA384,
        .ecdhKeyExchangeCofactorX963SHA512,
    ]
}

// The C names (`kSecKeyAlgorithm…`), for code written against the C API.
/// `SecKeyAlgorithm.rsaSignatureRaw`.
public let kSecKeyAlgorithmRSASignatureRaw = SecKeyAlgorithm.rsaSignatureRaw
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15Raw`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15Raw
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15MD5`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15MD5 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15MD5
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA224`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA224
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA256
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA384
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA512
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA1 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA1
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA224`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA224 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA224
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA256 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA256
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA384 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA384
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA512 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA512
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15MD5`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15MD5 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15MD5
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA224`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA224
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA384
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA1 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA1
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA224`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA224 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA224
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA256 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA256
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA384 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA384
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA512 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA512
/// `SecKeyAlgorithm.ecdsaSignatureRFC4754`.
public let kSecKeyAlgorithmECDSASignatureRFC4754 = SecKeyAlgorithm.ecdsaSignatureRFC4754
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962`.
public let kSecKeyAlgorithmECDSASignatureDigestX962 = SecKeyAlgorithm.ecdsaSignatureDigestX962
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA1 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA224`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA224 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA224
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA384 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA512 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA1 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA224`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA224 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA224
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA384 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA512 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA512
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA1`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA1
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA224`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA224
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA256`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA256
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA384`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA384
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA512`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA512
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA1`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA1
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA224`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA224
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA256`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA256
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA384`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA384
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA512`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA512
/// `SecKeyAlgorithm.rsaEncryptionRaw`.
public let kSecKeyAlgorithmRSAEncryptionRaw = SecKeyAlgorithm.rsaEncryptionRaw
/// `SecKeyAlgorithm.rsaEncryptionPKCS1`.
public let kSecKeyAlgorithmRSAEncryptionPKCS1 = SecKeyAlgorithm.rsaEncryptionPKCS1
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA1`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1 = SecKeyAlgorithm.rsaEncryptionOAEPSHA1
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA224`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224 = SecKeyAlgorithm.rsaEncryptionOAEPSHA224
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA256`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256 = SecKeyAlgorithm.rsaEncryptionOAEPSHA256
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA384`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384 = SecKeyAlgorithm.rsaEncryptionOAEPSHA384
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA512`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512 = SecKeyAlgorithm.rsaEncryptionOAEPSHA512
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA1AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA1AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA224AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA224AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA256AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA256AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA384AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA384AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA512AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA1AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA1AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA1AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA1AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA512AESGCM
/// `SecKeyAlgorithm.ecdhKeyExchangeStandard`.
public let kSecKeyAlgorithmECDHKeyExchangeStandard = SecKeyAlgorithm.ecdhKeyExchangeStandard
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA384
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA512
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactor`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactor = SecKeyAlgorithm.ecdhKeyExchangeCofactor
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA1
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA224`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA224
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA384
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA512
