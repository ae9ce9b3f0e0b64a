import Foundation
import KeychainCore
import Testing

@testable import KeychainSync

/// Keys and certificates travel like passwords: a synchronizable software key or certificate
/// made on one device is usable on the others (an identity forms again from its two halves), and
/// its changes and deletion follow; keys that may not leave their device never reach the server.
@Suite("Sync of keys and certificates", .serialized)
struct KeyAndCertificateSyncTests {
    @Test("a synchronizable key made on one device signs on another, its public key verifies that; a label change and a deletion follow")
    func synchronizableKeySignsElsewhere() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)

        let made = try a.client("generate-key", "signing", "sync")
        #expect(made.output.hasPrefix("0 04"), "\(made.output) \(made.error)")
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)

        let signed = try b.client("sign", "signing", "a message from B").output.split(separator: " ")
        #expect(signed.first == "0")
        let signature = String(signed.last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try a.client("verify", "signing", "a message from B", signature).output == "0\n")
        #expect(try a.client("verify", "signing", "another message", signature).output != "0\n")

        #expect(try b.client("update-key-label", "signing", "renamed on B").output == "0\n")
        #expect(try b.run("sync", "now").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try a.client("key-label", "signing").output == "0 renamed on B\n")

        #expect(try a.client("delete-key", "signing").output == "0\n")
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.client("sign", "signing", "again").output == "-25300\n")
        #expect(try b.client("count-class", "key").output == "-25300 0\n")
    }

    @Test("a certificate and its private key added as an identity form the identity on another device; deleting the certificate there reaches the first")
    func identityFormsOnAnotherDevice() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)

        let p12 = try Self.makeIdentityFile(in: a.home)
        #expect(try a.client("import-identity", p12, "secret").output == "0\n")
        #expect(try a.run("sync", "now").status == 0)
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.client("identity-sign", "proof").output == "0 0 Sync Identity\n")
        #expect(try b.client("count-class", "cert").output == "0 1\n")

        #expect(try b.client("delete-class", "cert").output == "0\n")
        #expect(try b.run("sync", "now").status == 0)
        #expect(try a.run("sync", "now").status == 0)
        #expect(try a.client("identity-sign", "proof").output == "-25300\n")
        #expect(try a.client("count-class", "cert").output == "-25300 0\n")
        // The private key is an item of its own, still shared.
        #expect(try a.client("count-class", "key").output == "0 1\n")
        #expect(try b.client("count-class", "key").output == "0 1\n")
    }

    @Test("keys that are not synchronizable or are ThisDeviceOnly never reach the server; the synchronizable one does")
    func localKeysStayHome() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(), try SyncDevice())
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)

        var publicKeys: [String: String] = [:]
        for (tag, mode) in [("stays-home", "local"), ("this-device", "this-device-only"), ("travels", "sync")] {
            let made = try a.client("generate-key", tag, mode).output
            #expect(made.hasPrefix("0 04"))
            publicKeys[tag] = String(made.dropFirst(2).dropLast())
        }
        // A synchronizable ThisDeviceOnly key is refused (errSecParam), as for any class.
        #expect(try a.client("generate-key", "refused", "this-device-only-sync").output == "-50\n")
        #expect(try a.client("count-class", "key").output == "0 3\n")
        #expect(try a.run("sync", "now").status == 0)

        // The server holds one live record: the synchronizable key's, sealed and padded to a
        // bucket (256 bytes or a power of two above), with neither the key (its public point is
        // part of the private key's representation) nor its tag in the clear.
        let rows = try server.admin.execute("SELECT record_id, ciphertext FROM keychain_sync.record WHERE NOT deleted")
        #expect(rows.count == 1)
        let sealed = try #require(try rows.bytes(0, "ciphertext"))
        let padded = sealed.count - 1 - (SyncCrypto.keyLength + SyncCrypto.boxOverhead) - SyncCrypto.boxOverhead
        #expect(padded >= 256 && padded & (padded - 1) == 0)
        for tag in ["travels", "stays-home", "this-device"] {
            let point = try #require(SyncCrypto.bytes(hex: publicKeys[tag] ?? ""))
            #expect(point.count == 65)
            #expect(sealed.range(of: point) == nil)
            #expect(sealed.range(of: Data(tag.utf8)) == nil)
        }
        #expect(try b.run("sync", "now").status == 0)
        #expect(try b.client("count-class", "key").output == "0 1\n")
        #expect(try b.client("key-label", "travels").output == "0 travels\n")
        #expect(try b.client("key-label", "stays-home").output == "-25300 \n")
        #expect(try b.client("key-label", "this-device").output == "-25300 \n")
    }

    /// A PKCS#12 file (password `secret`) of a self-signed P-256 certificate `CN=Sync Identity`
    /// and its private key, made by the `openssl` command in `directory`.
    static func makeIdentityFile(in directory: String) throws -> String {
        func openssl(_ arguments: String...) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw PostgresServer.Failure(what: "openssl \(arguments.first ?? "") failed") }
        }
        try openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "identity.key.pem")
        try openssl(
            "req", "-new", "-x509", "-key", "identity.key.pem", "-subj", "/CN=Sync Identity", "-days", "30", "-out", "identity.cert.pem")
        try openssl(
            "pkcs12", "-export", "-inkey", "identity.key.pem", "-in", "identity.cert.pem", "-name", "Sync Identity", "-passout",
            "pass:secret", "-out", "identity.p12")
        return directory + "/identity.p12"
    }
}
