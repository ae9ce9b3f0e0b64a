import KeychainCore

// SecCertificate, SecIdentity, SecTrust and SecPKCS12Import arrive with issue 4. Until then these
// declarations let client code compile and report that they are not implemented.

/// An X.509 certificate (`SecCertificate`). No certificate can be created yet.
public final class SecCertificate: Hashable, @unchecked Sendable {
    private init() {}
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A certificate with its private key (`SecIdentity`). No identity can be created yet.
public final class SecIdentity: Hashable, @unchecked Sendable {
    private init() {}
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A trust evaluation (`SecTrust`). Not implemented yet.
public final class SecTrust: Hashable, @unchecked Sendable {
    private init() {}
    public static func == (lhs: SecTrust, rhs: SecTrust) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Creates a certificate from DER (`SecCertificateCreateWithData`). Not implemented yet: nil.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { nil }

/// A certificate's DER bytes (`SecCertificateCopyData`). Not implemented yet.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { NSData() }

/// A certificate's subject summary (`SecCertificateCopySubjectSummary`). Not implemented yet: nil.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? { nil }

/// A certificate's public key (`SecCertificateCopyKey`). Not implemented yet: nil.
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { nil }

/// A certificate's common name (`SecCertificateCopyCommonName`). Not implemented yet: `errSecUnimplemented`.
public func SecCertificateCopyCommonName(_ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>) -> OSStatus {
    errSecUnimplemented
}

/// A certificate's email addresses (`SecCertificateCopyEmailAddresses`). Not implemented yet: `errSecUnimplemented`.
public func SecCertificateCopyEmailAddresses(_ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    errSecUnimplemented
}

/// A certificate's serial number (`SecCertificateCopySerialNumberData`). Not implemented yet.
public func SecCertificateCopySerialNumberData(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    error?.pointee = Unmanaged.passRetained(
        StatusMapping.cfError(status: errSecUnimplemented, reason: "SecCertificateCopySerialNumberData is not implemented yet"))
    return nil
}

/// An identity's certificate (`SecIdentityCopyCertificate`). Not implemented yet: `errSecUnimplemented`.
public func SecIdentityCopyCertificate(_ identity: SecIdentity, _ certificate: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    errSecUnimplemented
}

/// An identity's private key (`SecIdentityCopyPrivateKey`). Not implemented yet: `errSecUnimplemented`.
public func SecIdentityCopyPrivateKey(_ identity: SecIdentity, _ privateKey: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    errSecUnimplemented
}

/// The identity of a stored certificate (`SecIdentityCreateWithCertificate`). Not implemented yet.
public func SecIdentityCreateWithCertificate(
    _ keychainOrArray: CFTypeRef?, _ certificate: SecCertificate, _ identity: UnsafeMutablePointer<SecIdentity?>
) -> OSStatus {
    errSecUnimplemented
}

/// Imports a PKCS#12 file (`SecPKCS12Import`). Not implemented yet: `errSecUnimplemented`.
public func SecPKCS12Import(_ pkcs12Data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    errSecUnimplemented
}
