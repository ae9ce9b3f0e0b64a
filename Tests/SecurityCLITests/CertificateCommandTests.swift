import Foundation
import Testing

/// Runs `openssl` in `directory` (fixtures for the certificate and import commands).
@discardableResult
private func openssl(_ arguments: String..., in directory: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

private let hasOpenSSL = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

/// The certificate, identity, import and export commands, through the built binary, with
/// fixtures made by the `openssl` command in the tool's home directory.
@Suite(.enabled(if: hasOpenSSL)) struct CertificateCommandTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    /// A P-256 certificate and key (`client.crt`, `client.key`, `client.der`) and PKCS#12 files
    /// from current OpenSSL (`modern.p12`) and with legacy algorithms (`legacy.p12`).
    private func makeFixtures() throws {
        let home = tool.home
        #expect(try openssl(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "client.key",
            "-out", "client.crt", "-subj", "/CN=Demo Client/emailAddress=demo@example.com", "-days", "30", in: home) == 0)
        #expect(try openssl("x509", "-in", "client.crt", "-outform", "DER", "-out", "client.der", in: home) == 0)
        #expect(try openssl(
            "pkcs12", "-export", "-inkey", "client.key", "-in", "client.crt", "-name", "Demo Client", "-passout", "pass:s3cret",
            "-out", "modern.p12", in: home) == 0)
        #expect(try openssl(
            "pkcs12", "-export", "-legacy", "-inkey", "client.key", "-in", "client.crt", "-name", "Demo Client", "-passout",
            "pass:s3cret", "-out", "legacy.p12", in: home) == 0)
    }

    private func sha1(_ file: String) throws -> String {
        // openssl reads and writes files, not pipes: Foundation's pipe reads trap on a
        // signal-interrupted read (EINTR) on a loaded machine.
        let home = URL(fileURLWithPath: tool.home)
        let digest = home.appendingPathComponent(file + ".sha1")
        let hash = Process()
        hash.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        hash.arguments = ["dgst", "-sha1", "-r", "-out", digest.path, home.appendingPathComponent(file).path]
        hash.standardOutput = FileHandle.nullDevice
        try hash.run()
        hash.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: digest) }
        let text = String(decoding: try Data(contentsOf: digest), as: UTF8.self)
        return String(text.prefix(40)).uppercased()
    }

    @Test func importPKCS12ReportsIdentitiesAndRefusesWrongPasswords() throws {
        try makeFixtures()
        let wrong = try tool.run("import", "modern.p12", "-P", "nope")
        #expect(wrong.status == 51)
        #expect(wrong.error == "security: SecKeychainItemImport: The user name or passphrase you entered is not correct.\n")
        let modern = try tool.run("import", "modern.p12", "-P", "s3cret")
        #expect(modern.status == 0)
        #expect(modern.output == "1 identity imported.\n")
        let again = try tool.run("import", "legacy.p12", "-P", "s3cret")
        #expect(again.status == 45)
        #expect(again.error == "security: SecKeychainItemImport: The specified item already exists in the keychain.\n")
    }

    @Test func importLegacyPKCS12WithPromptedPassphrase() throws {
        try makeFixtures()
        let run = try tool.run("import", "legacy.p12", input: "s3cret\n")
        #expect(run.status == 0)
        #expect(run.output == "1 identity imported.\n")
        #expect(run.error.contains("passphrase"))
    }

    @Test func importCertificateAndKeyFiles() throws {
        try makeFixtures()
        let certificate = try tool.run("import", "client.crt")
        #expect(certificate.status == 0)
        #expect(certificate.output == "1 certificate imported.\n")
        let key = try tool.run("import", "client.key")
        #expect(key.status == 0)
        #expect(key.output == "1 key imported.\n")
        let identity = try tool.run("find-identity")
        #expect(identity.output.contains("\"Demo Client\""))  // the two items form an identity
        let garbage = try tool.run("import", "client.crt.missing")
        #expect(garbage.status == 1)
    }

    @Test func findIdentityPrintsMacOSLayout() throws {
        try makeFixtures()
        _ = try tool.run("import", "modern.p12", "-P", "s3cret")
        let hash = try sha1("client.der")
        let run = try tool.run("find-identity")
        #expect(run.status == 0)
        #expect(run.output == """

            Policy: X.509 Basic
              Matching identities
              1) \(hash) "Demo Client" (CSSMERR_TP_NOT_TRUSTED)
                 1 identities found

              Valid identities only
                 0 valid identities found

            """)
        let validOnly = try tool.run("find-identity", "-v", "-p", "ssl-client")
        #expect(validOnly.output == "\nPolicy: SSL (client)\n  Valid identities only\n     0 valid identities found\n")
    }

    @Test func addAndFindCertificates() throws {
        try makeFixtures()
        let added = try tool.run("add-certificates", "client.der")
        #expect(added.status == 0)
        #expect(added.output.isEmpty && added.error.isEmpty)
        let duplicate = try tool.run("add-certificates", "client.der")
        #expect(duplicate.status == 1)
        #expect(duplicate.error == "security: client.der: already in default keychain\n")
        let hash = try sha1("client.der")
        let hashes = try tool.run("find-certificate", "-c", "Demo", "-Z", "-m")
        #expect(hashes.status == 0)
        #expect(hashes.output.contains("SHA-1 hash: \(hash)\n"))
        #expect(hashes.output.contains("SHA-256 hash: "))
        #expect(hashes.output.contains("email addresses: demo@example.com\n"))
        #expect(hashes.output.contains("class: 0x80001000 \n"))
        #expect(hashes.output.contains("    \"labl\"<blob>=\"Demo Client\"\n"))
        let pem = try tool.run("find-certificate", "-a", "-p", "-e", "DEMO@example.com")
        let original = try String(contentsOfFile: tool.home + "/client.crt", encoding: .utf8)
        #expect(pem.output == original)
        let missing = try tool.run("find-certificate", "-c", "Nobody")
        #expect(missing.status == 44)
        #expect(missing.error == "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n")
    }

    @Test func deleteIdentityRemovesCertificateAndKey() throws {
        try makeFixtures()
        _ = try tool.run("import", "modern.p12", "-P", "s3cret")
        let hash = try sha1("client.der")
        #expect(try tool.run("delete-certificate", "-c", "Nobody").status == 44)
        let deleted = try tool.run("delete-identity", "-Z", hash.lowercased())
        #expect(deleted.status == 0)
        let after = try tool.run("find-identity")
        #expect(after.output.contains("     0 identities found"))
        #expect(try tool.run("find-certificate").status == 44)
        #expect(!(try tool.run("dump-keychain").output.contains("class: 0x00000010")))
    }

    @Test func exportIdentityAsPKCS12ThatOpenSSLReads() throws {
        try makeFixtures()
        _ = try tool.run("import", "modern.p12", "-P", "s3cret")
        let run = try tool.run("export", "-t", "identities", "-f", "pkcs12", "-P", "round", "-o", "out.p12")
        #expect(run.status == 0)
        #expect(run.error.hasPrefix("..."))
        #expect(try openssl("pkcs12", "-in", "out.p12", "-passin", "pass:round", "-nodes", "-out", "out.pem", in: tool.home) == 0)
        let certificates = try tool.run("export", "-t", "certs", "-f", "pemseq")
        #expect(certificates.output.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let keys = try tool.run("export", "-t", "privKeys", "-P", "round")
        #expect(keys.output.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"))
        #expect(try tool.run("export", "-t", "privKeys", input: "").status != 0)
    }
}
