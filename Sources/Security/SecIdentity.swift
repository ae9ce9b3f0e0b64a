import KeychainCore

/// A certificate with its private key (`SecIdentity`).
public final class SecIdentity: Hashable, @unchecked Sendable, CustomStringConvertible {
    let identity: Identity
    /// Where the private key is used when the keychain holds it.
    let holder: KeyHolder?

    init(_ identity: Identity, holder: KeyHolder? = nil) {
        self.identity = identity
        self.holder = holder
    }

    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool { lhs.identity == rhs.identity }
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }

    /// Names the identity by its certificate's subject summary.
    public var description: String { "<SecIdentity \(identity.certificate.subjectSummary ?? "?")>" }
}

/// A trust evaluation (`SecTrust`). Trust objects are not created by this keychain:
/// `SecPKCS12Import` leaves out `kSecImportItemTrust`, as Apple does when no trust exists.
public final class SecTrust: Hashable, @unchecked Sendable {
    private init() {}
    public static func == (lhs: SecTrust, rhs: SecTrust) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The identity's certificate (`SecIdentityCopyCertificate`).
public func SecIdentityCopyCertificate(_ identity: SecIdentity, _ certificate: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificate.pointee = SecCertificate(identity.identity.certificate)
    return errSecSuccess
}

/// The identity's private key (`SecIdentityCopyPrivateKey`).
public func SecIdentityCopyPrivateKey(_ identity: SecIdentity, _ privateKey: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKey.pointee = SecKey(identity.identity.privateKey, holder: identity.holder)
    return errSecSuccess
}

/// The identity of a certificate whose private key is in the keychain
/// (`SecIdentityCreateWithCertificate`): the private key whose application label equals the
/// certificate's public-key hash.
///
/// - Parameters:
///   - keychainOrArray: ignored (the process's keychain is searched).
///   - certificate: the identity's certificate.
///   - identity: receives the identity on success.
/// - Returns: `errSecSuccess`; `errSecItemNotFound` when no such private key is stored.
public func SecIdentityCreateWithCertificate(
    _ keychainOrArray: CFTypeRef?, _ certificate: SecCertificate, _ identity: UnsafeMutablePointer<SecIdentity?>
) -> OSStatus {
    StatusMapping.run {
        var request = ItemRequest(itemClass: .key)
        request.attributes = [.keyClass: .integer(1), .applicationLabel: .data(certificate.certificate.publicKeyHash)]
        request.returns = [.reference]
        let keychain = try ProcessKeychain.resolve()
        for result in try keychain.search(request) {
            if case .key(let key)? = result.reference, certificate.certificate.matches(privateKey: key) {
                identity.pointee = SecIdentity(
                    Identity(certificate: certificate.certificate, privateKey: key),
                    holder: KeyHolder(keychain: keychain, entries: RequestEntries()))
                return
            }
        }
        throw KeychainError(.itemNotFound, "no private key of the certificate is stored")
    }
}

/// Reads a PKCS#12 file (`SecPKCS12Import`) without storing anything (as on iOS).
///
/// - Parameters:
///   - pkcs12Data: the file's bytes (DER).
///   - options: `kSecImportExportPassphrase` (a string; an empty password when absent).
///   - items: an array with one dictionary per identity: `kSecImportItemIdentity`,
///     `kSecImportItemCertChain` (the certificate first, then its issuers), `kSecImportItemLabel`
///     (the friendly name, else the subject summary) and `kSecImportItemKeyID` (the local key ID)
///     when present. `kSecImportItemTrust` is left out: no trust is evaluated.
/// - Returns: `errSecSuccess`; `errSecAuthFailed` for a wrong password; `errSecDecode` for data
///   that is not a PKCS#12 file; `errSecParam` for a passphrase that is not a string.
public func SecPKCS12Import(_ pkcs12Data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    StatusMapping.run {
        let values = try RequestBridge.dictionary(options)
        let password: String
        switch values["passphrase"] {
        case .string(let text)?: password = text
        case nil: password = ""
        default: throw KeychainError.param("kSecImportExportPassphrase must be a string")
        }
        let file = try PKCS12File(data: Data(referencing: pkcs12Data), password: password)
        var results: [[String: Any]] = []
        if let identity = file.identity {
            var entry: [String: Any] = [
                "identity": SecIdentity(identity),
                "chain": ([identity.certificate] + file.chain).map(SecCertificate.init) as NSArray,
            ]
            if let label = file.friendlyName ?? identity.certificate.subjectSummary { entry["label"] = label }
            if let keyID = file.localKeyID { entry["keyid"] = keyID }
            results.append(entry)
        }
        items.pointee = results as NSArray
    }
}
