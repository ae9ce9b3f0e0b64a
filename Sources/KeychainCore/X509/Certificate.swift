import Foundation
import KeychainCrypto

/// An X.509 certificate: the engine's `SecCertificate`.
///
/// Created only from exactly one DER certificate (`SecCertificateCreateWithData` returns nil for
/// anything else). Equal certificates have equal DER.
public struct Certificate: Hashable, Sendable {
    /// The DER bytes, as given.
    public let der: Data
    /// The certificate version (0 for v1, 2 for v3).
    public let version: Int
    /// The serial number: the content octets of the DER INTEGER.
    public let serialNumber: Data
    let issuer: DistinguishedName
    let subject: DistinguishedName
    /// The key identifier the subject key identifier extension holds, if the certificate has one.
    public let subjectKeyID: Data?
    /// The subjectPublicKey BIT STRING's contents (without the unused-bits octet).
    public let publicKeyBits: Data
    /// Email addresses: the subject's `emailAddress` values, then the alternative name's
    /// rfc822Names.
    public let emailAddresses: [String]
    /// The alternative name's dNSNames.
    public let dnsNames: [String]
    let backing: X509Certificate

    /// Parses DER with OpenSSL (`X509Certificate`, the one certificate parser); every field
    /// below comes from that parse.
    ///
    /// - Throws: `errSecDecode` when `der` is not exactly one well-formed certificate: anything
    ///   OpenSSL does not parse as one, trailing bytes, an indefinite length at any depth (BER,
    ///   not DER), an issuer or subject that is not a well-formed `Name`, or a subject key
    ///   identifier or alternative name extension whose value does not decode.
    public init(der: Data) throws {
        let parsed = try withEngineErrors { try der.withUnsafeBytes { try X509Certificate(der: $0) } }
        backing = parsed
        try DERNode.requireDefiniteLengths(der)
        self.der = der
        version = parsed.version
        serialNumber = try withEngineErrors { try parsed.serialNumber() }
        issuer = try DistinguishedName(DERNode.parse(withEngineErrors { try parsed.issuerName() }))
        subject = try DistinguishedName(DERNode.parse(withEngineErrors { try parsed.subjectName() }))
        publicKeyBits = try withEngineErrors { try parsed.subjectPublicKeyBits() }
        // The last subject key identifier counts; every alternative name extension's names do, in order.
        var keyID: Data?
        for value in parsed.extensionValues(X509Certificate.subjectKeyIdentifierExtension) {
            try DERNode.requireDefiniteLengths(value)
            keyID = try withEngineErrors { try X509Certificate.keyIdentifier(value) }
        }
        var emails = subject.values(of: DistinguishedName.emailAddress)
        var dns: [String] = []
        for value in parsed.extensionValues(X509Certificate.subjectAlternativeNameExtension) {
            try DERNode.requireDefiniteLengths(value)
            let names = try withEngineErrors { try X509Certificate.alternativeNames(value) }
            emails += names.emailAddresses
            dns += names.dnsNames
        }
        subjectKeyID = keyID
        emailAddresses = emails
        dnsNames = dns
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }

    /// `kSecAttrPublicKeyHash`: SHA-1 of the subjectPublicKey bits, equal to the matching private
    /// key's `kSecAttrApplicationLabel`.
    public var publicKeyHash: Data { (try? Digest.sha1(publicKeyBits)) ?? Data() }

    /// `SecCertificateCopySubjectSummary`: the subject's last common name (else organizational
    /// unit, organization, any value), else the first email address, else the first DNS name.
    public var subjectSummary: String? {
        subject.summary ?? emailAddresses.first ?? dnsNames.first
    }

    /// The subject's common names, in order (`SecCertificateCopyCommonName` returns the last).
    public var commonNames: [String] { subject.values(of: DistinguishedName.commonName) }

    /// `SecCertificateCopyNormalizedIssuerSequence`.
    public var normalizedIssuerSequence: Data { issuer.normalizedSequence }
    /// `SecCertificateCopyNormalizedSubjectSequence`.
    public var normalizedSubjectSequence: Data { subject.normalizedSequence }
    /// The issuer's DER as it appears in the certificate.
    public var issuerDER: Data { issuer.der }
    /// The subject's DER as it appears in the certificate.
    public var subjectDER: Data { subject.der }
    /// A one-line description of the subject ("CN=…, O=…").
    public var subjectDescription: String { subject.description }
    /// A one-line description of the issuer.
    public var issuerDescription: String { issuer.description }

    /// The subject public key (`SecCertificateCopyKey`).
    public func publicKey() throws -> AsymmetricKey {
        try AsymmetricKey(importing: withEngineErrors { try backing.publicKey() })
    }

    /// The attributes Apple extracts when a certificate is added by `kSecValueRef`
    /// (`SecCertificateCopyAttributeDictionary`), without `kSecValueData`: type (version + 1,
    /// CSSM_CERT_X_509v1…v3), encoding (3, DER), normalized subject and issuer content, serial
    /// number, subject key ID and public-key hash. (An add without a label takes the subject
    /// summary.)
    public var itemAttributes: ItemAttributes {
        var attributes: ItemAttributes = [
            .certificateType: .integer(Int64(version + 1)),
            .certificateEncoding: .integer(3),
            .subject: .data(subject.normalizedContent),
            .issuer: .data(issuer.normalizedContent),
            .serialNumber: .data(serialNumber),
            .publicKeyHash: .data(publicKeyHash),
        ]
        if let subjectKeyID { attributes[.subjectKeyID] = .data(subjectKeyID) }
        return attributes
    }

    /// Whether `key` is the private key of this certificate.
    public func matches(privateKey key: AsymmetricKey) -> Bool {
        key.keyClass == .private && backing.matches(privateKey: key.backing)
    }

    /// Checks the certificate against the system's trust anchors, with `intermediates` as
    /// chain candidates.
    ///
    /// - Returns: nil when trusted; otherwise macOS's name for the failure
    ///   (`CSSMERR_TP_CERT_EXPIRED`, `CSSMERR_TP_CERT_NOT_VALID_YET`, `CSSMERR_TP_NOT_TRUSTED`).
    public func trustFailure(intermediates: [Certificate]) -> String? {
        guard let error = backing.verificationError(intermediates: intermediates.map(\.backing)) else { return nil }
        switch error {
        case X509Certificate.expiredError: return "CSSMERR_TP_CERT_EXPIRED"
        case X509Certificate.notYetValidError: return "CSSMERR_TP_CERT_NOT_VALID_YET"
        default: return "CSSMERR_TP_NOT_TRUSTED"
        }
    }

    /// Normalizes a DER `Name` a caller gives as `kSecAttrIssuer` (Apple normalizes full names in
    /// queries); other values are returned unchanged.
    package static func normalizedNameAttribute(_ data: Data) -> Data {
        guard data.first == DERNode.sequence, let node = try? DERNode.parse([UInt8](data)),
            let name = try? DistinguishedName(node)
        else { return data }
        return name.normalizedContent
    }
}

/// A certificate with its private key: the engine's `SecIdentity`.
public struct Identity: Hashable, Sendable {
    /// The certificate.
    public let certificate: Certificate
    /// The private key, whose application label equals the certificate's public-key hash.
    public let privateKey: AsymmetricKey

    /// Pairs a certificate and a private key.
    public init(certificate: Certificate, privateKey: AsymmetricKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

/// An object a SecItem dictionary passes as `kSecValueRef` or a search returns for
/// `kSecReturnRef`.
public enum ItemReference: Hashable, Sendable {
    /// A `SecKey`.
    case key(AsymmetricKey)
    /// A `SecCertificate`.
    case certificate(Certificate)
    /// A `SecIdentity`.
    case identity(Identity)
}

/// The digests the `security` tool prints for certificates (`-Z`).
public enum CertificateDigest {
    /// SHA-1.
    public static func sha1(_ data: Data) throws -> Data { try Digest.sha1(data) }
    /// SHA-256.
    public static func sha256(_ data: Data) throws -> Data { try Digest.sha256(data) }
}
