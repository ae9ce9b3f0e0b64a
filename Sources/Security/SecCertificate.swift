import KeychainCore

/// An X.509 certificate (`SecCertificate`). Equal certificates have equal DER.
public final class SecCertificate: Hashable, @unchecked Sendable, CustomStringConvertible {
    let certificate: Certificate

    init(_ certificate: Certificate) { self.certificate = certificate }

    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.certificate == rhs.certificate }
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }

    /// Names the certificate by its subject summary.
    public var description: String { "<cert(\(certificate.subjectSummary ?? "?"))>" }
}

/// Creates a certificate from DER (`SecCertificateCreateWithData`).
///
/// - Returns: the certificate, or nil when `data` is not exactly one DER X.509 certificate
///   (PEM must be unwrapped first, as on Apple platforms).
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    (try? Certificate(der: Data(referencing: data))).map(SecCertificate.init)
}

/// The certificate's DER (`SecCertificateCopyData`).
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    NSData(data: certificate.certificate.der)
}

/// A human-readable summary of the subject (`SecCertificateCopySubjectSummary`): the last common
/// name; else the organizational unit, the organization or another value; else the first email
/// address or DNS name.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.certificate.subjectSummary.map { $0 as NSString }
}

/// The certificate's public key (`SecCertificateCopyKey`); nil for a key type this keychain does
/// not support.
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    (try? certificate.certificate.publicKey()).map { SecKey($0) }
}

/// The certificate's public key (`SecCertificateCopyPublicKey`, deprecated name of
/// `SecCertificateCopyKey`).
public func SecCertificateCopyPublicKey(_ certificate: SecCertificate) -> SecKey? {
    SecCertificateCopyKey(certificate)
}

/// The subject's common name (`SecCertificateCopyCommonName`): the last one when there are several.
///
/// - Returns: `errSecSuccess`; errSecInternal (-26276, from Apple's SecBasePriv.h) when the
///   subject has no common name, as Apple's implementation returns.
public func SecCertificateCopyCommonName(_ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>) -> OSStatus {
    guard let name = certificate.certificate.commonNames.last else { return StatusMapping.errSecInternal }
    commonName.pointee = name as NSString
    return errSecSuccess
}

/// The certificate's email addresses (`SecCertificateCopyEmailAddresses`): the subject's
/// `emailAddress` values and the alternative name's rfc822Names; an empty array when none.
public func SecCertificateCopyEmailAddresses(_ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    emailAddresses.pointee = certificate.certificate.emailAddresses as NSArray
    return errSecSuccess
}

/// The serial number's big-endian bytes as they appear in the DER INTEGER
/// (`SecCertificateCopySerialNumberData`; the same bytes as `kSecAttrSerialNumber`).
public func SecCertificateCopySerialNumberData(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    NSData(data: certificate.certificate.serialNumber)
}

/// The serial number (`SecCertificateCopySerialNumber`, deprecated name).
public func SecCertificateCopySerialNumber(_ certificate: SecCertificate) -> CFData? {
    NSData(data: certificate.certificate.serialNumber)
}

/// The issuer in Apple's normalized form, as a DER SEQUENCE
/// (`SecCertificateCopyNormalizedIssuerSequence`): string values upper-cased with white space
/// trimmed and collapsed, encoded as UTF8String.
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: certificate.certificate.normalizedIssuerSequence)
}

/// The subject in Apple's normalized form (`SecCertificateCopyNormalizedSubjectSequence`).
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: certificate.certificate.normalizedSubjectSequence)
}
