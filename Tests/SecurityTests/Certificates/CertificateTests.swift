import Foundation
import Security
import Testing

@Suite("SecCertificate", .enabled(if: OpenSSLCommand.path != nil))
struct CertificateTests {
    /// A certificate with two common names, an email address and a subject key identifier.
    static func fixture(_ openssl: OpenSSLCommand) throws -> SecCertificate {
        try openssl.makeSelfSigned(
            "leaf", subject: "/C=US/O=Example  Org/CN=first/CN=Leaf  Name", extra: [
                "-addext", "subjectAltName=email:leaf@example.com,DNS:leaf.example.com",
            ])
        return try #require(SecCertificateCreateWithData(nil, try openssl.read("leaf.cert.der") as CFData))
    }

    @Test("SecCertificateCreateWithData accepts one DER certificate and nothing else")
    func createWithData() throws {
        let openssl = try OpenSSLCommand()
        let certificate = try Self.fixture(openssl)
        let der = try openssl.read("leaf.cert.der")
        #expect(SecCertificateCopyData(certificate) as Data == der)
        #expect(SecCertificateCreateWithData(nil, try openssl.read("leaf.cert.pem") as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, (der + Data([0])) as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, der.prefix(der.count - 1) as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, Data() as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, Data([0x30, 0x03, 0x02, 0x01, 0x01]) as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, der as CFData) == certificate)
    }

    @Test("Summary, common name, emails, serial number and key come from the certificate")
    func accessors() throws {
        let openssl = try OpenSSLCommand()
        let certificate = try Self.fixture(openssl)
        #expect(SecCertificateCopySubjectSummary(certificate) as String? == "Leaf  Name")
        var commonName: CFString?
        #expect(SecCertificateCopyCommonName(certificate, &commonName) == errSecSuccess)
        #expect(commonName as String? == "Leaf  Name")
        var emails: CFArray?
        #expect(SecCertificateCopyEmailAddresses(certificate, &emails) == errSecSuccess)
        #expect(emails as? [String] == ["leaf@example.com"])
        let serialText = String(decoding: try openssl.require("x509", "-in", "leaf.cert.pem", "-noout", "-serial"), as: UTF8.self)
        let serialHex = serialText.split(separator: "=").last!.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let serial = try #require(SecCertificateCopySerialNumberData(certificate, nil) as Data?)
        #expect(serial.hex.hasSuffix(serialHex) || serialHex.hasSuffix(serial.hex))
        let key = try #require(SecCertificateCopyKey(certificate))
        let spki = try openssl.require("pkey", "-in", "leaf.key.pem", "-pubout", "-outform", "DER")
        #expect(external(key) == spki.suffix(65))
        let normalized = try #require(SecCertificateCopyNormalizedSubjectSequence(certificate) as Data?)
        #expect(normalized.range(of: Data("EXAMPLE ORG".utf8)) != nil)
        #expect(normalized.range(of: Data("LEAF NAME".utf8)) != nil)
    }

    @Test("Adding by kSecValueRef extracts issuer, serial, subject, key ID, key hash, type, encoding and label")
    func addByReference() throws {
        try TemporaryKeychain.run { _ in
            let openssl = try OpenSSLCommand()
            let certificate = try Self.fixture(openssl)
            let (status, result) = addReturning([
                kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                kSecReturnAttributes as String: true,
            ])
            #expect(status == errSecSuccess)
            let stored = try #require(result as? [String: Any])
            #expect(stored[kSecAttrLabel as String] as? String == "Leaf  Name")
            #expect((stored[kSecAttrCertificateType as String] as? NSNumber)?.intValue == 3)
            #expect((stored[kSecAttrCertificateEncoding as String] as? NSNumber)?.intValue == 3)
            #expect(stored[kSecAttrSerialNumber as String] as? Data == SecCertificateCopySerialNumberData(certificate, nil) as Data?)
            #expect(stored[kSecAttrSubjectKeyID as String] is Data)
            #expect(stored[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAlways as String)
            let spki = try openssl.require("pkey", "-in", "leaf.key.pem", "-pubout", "-outform", "DER")
            #expect(stored[kSecAttrPublicKeyHash as String] as? Data == sha1(spki.suffix(65)))
            #expect((stored[kSecAttrIssuer as String] as? Data)?.range(of: Data("EXAMPLE ORG".utf8)) != nil)
            #expect(add([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate]) == errSecDuplicateItem)
            let found = copyMatching([kSecClass as String: kSecClassCertificate, kSecReturnRef as String: true])
            #expect(found.result as? SecCertificate == certificate)
            let data = copyMatching([kSecValueRef as String: certificate, kSecReturnData as String: true])
            #expect(data.result as? Data == SecCertificateCopyData(certificate) as Data)
            // A full DER issuer Name in a query is compared in its normalized form.
            let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(certificate) as Data?)
            #expect(count([kSecClass as String: kSecClassCertificate, kSecAttrIssuer as String: issuer]) == 1)
        }
    }

    @Test("Item-classes guide, storeServerRoot: stores the certificate with the caller's label and refuses what is not DER")
    func storeServerRootSnippet() throws {
        try TemporaryKeychain.run { _ in
            let openssl = try OpenSSLCommand()
            try openssl.makeSelfSigned("root", subject: "/CN=Internal Root CA")
            try storeServerRoot(der: try openssl.read("root.cert.der"))
            try storeServerRoot(der: try openssl.read("root.cert.der"))  // a duplicate is tolerated
            let stored = attributes([kSecClass as String: kSecClassCertificate])
            #expect(stored?[kSecAttrLabel as String] as? String == "Internal root")
            #expect(throws: KeychainError(status: errSecParam)) { try storeServerRoot(der: Data("not DER".utf8)) }
        }
    }

    @Test("A certificate reference added with kSecAttrApplicationTag is errSecParam")
    func applicationTagRefused() throws {
        try TemporaryKeychain.run { _ in
            let openssl = try OpenSSLCommand()
            let certificate = try Self.fixture(openssl)
            #expect(add([
                kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                kSecAttrApplicationTag as String: Data("tag".utf8),
            ]) == errSecParam)
        }
    }
}
