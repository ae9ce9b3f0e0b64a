import Foundation
import Security
import Testing

@Suite("SecIdentity and SecPKCS12Import", .enabled(if: OpenSSLCommand.path != nil))
struct IdentityReferenceTests {
    /// A PKCS#12 file made by `openssl pkcs12 -export` (with `-legacy`: RC2/3DES and SHA-1, as
    /// older tools and macOS write them).
    static func makePKCS12(_ openssl: OpenSSLCommand, legacy: Bool, password: String = "secret", keyAlgorithm: String = "EC") throws -> Data {
        try openssl.makeSelfSigned("ca", subject: "/CN=Test CA", keyAlgorithm: keyAlgorithm)
        if keyAlgorithm == "EC" {
            try openssl.require("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "client.key.pem")
        } else {
            try openssl.require("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "client.key.pem")
        }
        try openssl.require("req", "-new", "-key", "client.key.pem", "-subj", "/CN=Client One/O=Example", "-out", "client.csr")
        try openssl.require(
            "x509", "-req", "-in", "client.csr", "-CA", "ca.cert.pem", "-CAkey", "ca.key.pem", "-CAcreateserial", "-days", "30",
            "-out", "client.cert.pem")
        var arguments = [
            "pkcs12", "-export", "-inkey", "client.key.pem", "-in", "client.cert.pem", "-certfile", "ca.cert.pem",
            "-name", "Client One Identity", "-passout", "pass:\(password)", "-out", "client.p12",
        ]
        if legacy { arguments.append("-legacy") }
        let (status, _) = try openssl.run(arguments)
        guard status == 0 else { throw OpenSSLCommand.CommandFailure(arguments: arguments, status: status) }
        return try openssl.read("client.p12")
    }

    static func importItems(_ data: Data, password: String) -> (OSStatus, [[String: Any]]) {
        var items: CFArray?
        let status = SecPKCS12Import(data as CFData, [kSecImportExportPassphrase as String: password] as CFDictionary, &items)
        return (status, items as? [[String: Any]] ?? [])
    }

    @Test("SecPKCS12Import reads files from current OpenSSL and legacy (RC2/3DES) files", arguments: [false, true])
    func importBothEras(legacy: Bool) throws {
        let openssl = try OpenSSLCommand()
        let data = try Self.makePKCS12(openssl, legacy: legacy, keyAlgorithm: legacy ? "RSA" : "EC")
        let (status, items) = Self.importItems(data, password: "secret")
        #expect(status == errSecSuccess)
        #expect(items.count == 1)
        let item = try #require(items.first)
        let identity = item[kSecImportItemIdentity as String] as! SecIdentity
        #expect(item[kSecImportItemLabel as String] as? String == "Client One Identity")
        #expect(item[kSecImportItemKeyID as String] is Data)
        #expect(item[kSecImportItemTrust as String] == nil)
        let chain = try #require(item[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(chain.map { SecCertificateCopySubjectSummary($0) as String? } == ["Client One", "Test CA"])
        var certificate: SecCertificate?
        var key: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        #expect(SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess)
        #expect(certificate == chain.first)
        let algorithm: SecKeyAlgorithm = legacy ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
        let signature = try sign(key!, algorithm, Data("proof".utf8))
        #expect(verifyStatus(SecCertificateCopyKey(certificate!)!, algorithm, Data("proof".utf8), signature) == errSecSuccess)
    }

    @Test("A wrong password is errSecAuthFailed; malformed input is errSecDecode, never a crash")
    func importErrors() throws {
        let openssl = try OpenSSLCommand()
        let data = try Self.makePKCS12(openssl, legacy: false)
        #expect(Self.importItems(data, password: "wrong").0 == errSecAuthFailed)
        #expect(Self.importItems(Data(), password: "secret").0 == errSecDecode)
        #expect(Self.importItems(Data([0x30, 0x00]), password: "secret").0 == errSecDecode)
        for cut in stride(from: 1, to: data.count, by: max(1, data.count / 25)) {
            let status = Self.importItems(data.prefix(cut), password: "secret").0
            #expect(status == errSecDecode || status == errSecAuthFailed)
        }
        var flipped = data
        flipped[data.count / 2] ^= 0xFF
        #expect([errSecDecode, errSecAuthFailed].contains(Self.importItems(flipped, password: "secret").0))
    }

    @Test("Item-classes guide, importClientIdentity: returns the identity; a wrong password throws errSecAuthFailed")
    func seedSnippet() throws {
        let openssl = try OpenSSLCommand()
        let data = try Self.makePKCS12(openssl, legacy: true)
        let identity = try importClientIdentity(p12: data, password: "secret")
        var certificate: SecCertificate?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        #expect(throws: KeychainError(status: errSecAuthFailed)) { _ = try importClientIdentity(p12: data, password: "nope") }
    }

    @Test("An identity added by ref stores both halves, is found as kSecClassIdentity, and delete keeps a shared key")
    func identityItems() throws {
        try TemporaryKeychain.run { _ in
            let openssl = try OpenSSLCommand()
            let (_, items) = Self.importItems(try Self.makePKCS12(openssl, legacy: false), password: "secret")
            let identity = items.first![kSecImportItemIdentity as String] as! SecIdentity
            #expect(add([kSecClass as String: kSecClassIdentity]) == errSecParam)
            let (status, persistent) = addReturning([kSecValueRef as String: identity, kSecReturnPersistentRef as String: true])
            #expect(status == errSecSuccess)
            #expect((persistent as? Data)?.prefix(4) == Data("idnt".utf8))
            #expect(add([kSecValueRef as String: identity]) == errSecDuplicateItem)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 1)
            #expect(count([kSecClass as String: kSecClassKey]) == 1)

            let found = copyMatching([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true])
            #expect(found.result as? SecIdentity == identity)
            let byReference = copyMatching([kSecValuePersistentRef as String: persistent!, kSecReturnRef as String: true])
            #expect(byReference.result as? SecIdentity == identity)
            let described = copyMatching([
                kSecClass as String: kSecClassIdentity, kSecReturnAttributes as String: true, kSecReturnRef as String: true,
            ]).result as? [String: Any]
            #expect(described?[kSecValueRef as String] as? SecIdentity == identity)
            #expect(described?[kSecAttrLabel as String] as? String == "Client One")

            var certificate: SecCertificate?
            _ = SecIdentityCopyCertificate(identity, &certificate)
            var rebuilt: SecIdentity?
            #expect(SecIdentityCreateWithCertificate(nil, certificate!, &rebuilt) == errSecSuccess)
            #expect(rebuilt == identity)

            #expect(delete([kSecValueRef as String: identity]) == errSecSuccess)
            #expect(count([kSecClass as String: kSecClassCertificate]) == 0)
            #expect(count([kSecClass as String: kSecClassKey]) == 0)
            #expect(SecIdentityCreateWithCertificate(nil, certificate!, &rebuilt) == errSecItemNotFound)
        }
    }
}
