import Foundation
import KeychainCore
import Security

/// `export [-k keychain] [-t type] [-f format] [-w] [-p] [-P passphrase] [-o outfile]`.
///
/// Types: `certs`, `allKeys`, `pubKeys`, `privKeys`, `identities`, `all` (the default).
/// Formats: `pkcs12` (the first identity with the other certificates, encrypted with the
/// passphrase; the default for `identities`), `x509` (one certificate's DER), `openssl`/`pkcs8`
/// (keys as PEM), `pemseq` (everything as a PEM sequence; the default otherwise). `-p` wraps
/// binary output in PEM. Private keys always leave the keychain encrypted with the passphrase
/// (`-P`, else asked for): as PKCS#8 `ENCRYPTED PRIVATE KEY` or inside the PKCS#12 file. With
/// `-o` the output goes to a new private file (mode 0600 before its first byte, renamed over any
/// file at that path) and `...N bytes written to FILE` is printed.
/// Nothing to export is errSecItemNotFound (exit 44).
///
/// A private key the keychain holds (its access control has constraints, which guard its
/// export) is exported once the user satisfies them, asked through the prompt as for any item
/// with access control: a cancelled prompt is errSecUserCanceled (exit 128), a wrong passcode or
/// a constraint that cannot be met errSecAuthFailed (exit 51), no way to ask
/// errSecInteractionNotAllowed (exit 36). The private key of a Secure Enclave (TPM) key never
/// leaves the TPM: a request that includes one is errSecUnimplemented (exit 252), as
/// `SecKeyCopyExternalRepresentation` is for it, and nothing is written.
struct ExportCommand: CommandDefinition {
    /// The API name failures are reported under.
    static let api = "SecKeychainItemExport"

    let name = "export"
    let usage = """
        [-k keychain] [-t type] [-f format] [-w] [-p] [-P passphrase] [-o outfile]
            -k  Keychain to export items from
            -t  Type = certs|allKeys|pubKeys|privKeys|identities|all (Default: all)
            -f  Format = openssl|pkcs8|pkcs12|x509|pemseq
            -w  Private keys are wrapped (always: they are encrypted with the passphrase)
            -p  PEM encode the output
            -P  Specify wrapping passphrase immediately (default is a prompt)
            -o  Specify output file (default is stdout)
        """
    let summary = "Export items from a keychain."
    let options = OptionParser("k:o:t:f:P:wph", secrets: ["P"])

    func run(_ invocation: Invocation) throws -> Int32 {
        let api = Self.api
        let scan = invocation.scan
        var keychainName: String?
        var outputPath: String?
        var type = "all"
        var format: String?
        var armour = false
        var passphrase: String?
        for element in scan.elements {
            switch element {
            case .option("k", let name): keychainName = name
            case .option("o", let path): outputPath = path
            case .option("t", let value?):
                guard ["certs", "allKeys", "pubKeys", "privKeys", "identities", "all"].contains(value) else {
                    throw ToolError.usage(reason: "unknown export type \"\(value)\"")
                }
                type = value
            case .option("f", let value?):
                guard ["openssl", "pkcs8", "pkcs12", "x509", "pemseq", "bsafe", "pkcs7", "openssh1", "openssh2"].contains(value) else {
                    throw ToolError.usage(reason: "unknown export format \"\(value)\"")
                }
                format = value
            case .option("p", _): armour = true
            case .secret("P", let value): passphrase = try OptionParser.text(ofSecret: value, option: "P")
            case .option("w", _): break
            default: throw invocation.usageError(for: element)
            }
        }
        guard scan.operands.isEmpty else { throw ToolError.usage(reason: nil) }
        let keychains = [try keychainName.map(KeychainSession.open) ?? KeychainSession.openDefault()]

        let identities = ["identities", "all"].contains(type) ? try StoredObjects.identities(in: keychains, api: api).map(\.identity) : []
        let certificates = ["certs", "all"].contains(type) ? try StoredObjects.certificates(in: keychains, api: api).map(\.certificate) : []
        var keys: [AsymmetricKey] = []
        if ["allKeys", "pubKeys", "privKeys", "all"].contains(type) {
            var stored = try Self.storedKeys(keychains, for: invocation).filter { key in
                type == "pubKeys" ? key.key.keyClass == .public : type == "privKeys" ? key.key.keyClass == .private : true
            }
            if type == "all" { stored.removeAll { key in identities.contains { $0.privateKey == key.key } } }
            // Refused before anyone is asked for another key.
            if stored.contains(where: { $0.inToken && $0.key.keyClass == .private }) { throw Self.tokenKeyRefusal }
            keys = try stored.map { try Self.exportable($0.key, from: $0.keychain, for: invocation) }
        }
        let standalone = certificates.filter { certificate in !identities.contains { $0.certificate == certificate } }
        guard !identities.isEmpty || !standalone.isEmpty || !keys.isEmpty else {
            throw ToolError.status(errSecItemNotFound, api: api)
        }
        let chosen = format ?? (type == "identities" ? "pkcs12" : (standalone.count == 1 && keys.isEmpty && identities.isEmpty ? "x509" : "pemseq"))
        let needsPassphrase = chosen == "pkcs12" || !identities.isEmpty || keys.contains { $0.keyClass == .private }
        let phrase = needsPassphrase ? try passphrase ?? Self.prompt(invocation.console) : nil
        if needsPassphrase && (phrase ?? "").isEmpty {
            throw ToolError.status(errSecPassphraseRequired, api: api)
        }
        var output = Data()
        do {
            switch chosen {
            case "pkcs12":
                guard let identity = identities.first else { throw KeychainError(.itemNotFound, "no identity to export") }
                let others = standalone + identities.dropFirst().map(\.certificate)
                let file = try PKCS12File.export(identity: identity, certificates: others, password: phrase ?? "")
                output = armour ? Data(PEM.encode(file, label: "PKCS12").utf8) : file
            case "x509":
                guard let certificate = standalone.first ?? identities.first?.certificate else {
                    throw KeychainError(.itemNotFound, "no certificate to export")
                }
                output = armour ? Data(PEM.encode(certificate.der, label: "CERTIFICATE").utf8) : certificate.der
            default:
                for identity in identities {
                    output += Data(PEM.encode(identity.certificate.der, label: "CERTIFICATE").utf8)
                    output += try identity.privateKey.pem(passphrase: phrase).withUnsafeBytes { Data($0) }
                }
                for certificate in standalone where chosen == "pemseq" {
                    output += Data(PEM.encode(certificate.der, label: "CERTIFICATE").utf8)
                }
                for key in keys {
                    output += try key.pem(passphrase: key.keyClass == .private ? phrase : nil).withUnsafeBytes { Data($0) }
                }
            }
        } catch {
            throw ToolError.api(api, error)
        }
        defer { output.resetBytes(in: 0..<output.count) }
        if let outputPath {
            do {
                try FileSystem.replaceAtomically(KeychainSession.absolutePath(outputPath), contents: output, role: .export)
            } catch let error as KeychainError where error.code == .writePermission {
                throw ToolError.api(api, error)
            } catch {
                throw ToolError.failed(result: 1, message: "security: export: could not write \(outputPath)\n")
            }
            invocation.console.error("...\(output.count) bytes written to \(outputPath)\n")
        } else {
            invocation.console.writeOutput([UInt8](output))
        }
        return 0
    }

    /// The refusal of a request that includes a token key's private half.
    private static let tokenKeyRefusal = ToolError.failed(
        result: errSecUnimplemented,
        message: (ToolError.status(errSecUnimplemented, api: api).message ?? "")
            + "security: the private key of a Secure Enclave (TPM) key never leaves the TPM; export its public key with -t pubKeys\n")

    /// The private key to write for `key`: `key` itself, or for a private key `keychain` holds,
    /// the key the keychain gives once its access control is satisfied (the user is asked as for
    /// any item with access control; a locked keychain is unlocked first when it may be).
    ///
    /// - Throws: `tokenKeyRefusal` for a token key; `ToolError` with the status of a refused or
    ///   failed authentication.
    private static func exportable(_ key: AsymmetricKey, from keychain: any KeychainHandle, for invocation: Invocation) throws -> AsymmetricKey {
        guard key.keyClass == .private, let item = key.keychainItemReference else { return key }
        do {
            var data = try KeychainSession.unlockingIfNeeded(keychain, for: invocation) {
                try AuthenticatedCall.run(
                    authentication: ItemAuthentication(), context: nil, reason: "security: export a private key", keychain: keychain
                ) { authentication in
                    try keychain.useKey(KeyUse(item: item, operation: .export, authentication: authentication))
                }
            }
            defer { data.resetBytes(in: data.startIndex..<data.endIndex) }
            return try AsymmetricKey(externalRepresentation: data, type: key.type, keyClass: .private)
        } catch let error as KeychainError where error.code == .unimplemented {
            throw tokenKeyRefusal
        } catch {
            throw ToolError.api(api, error)
        }
    }

    /// Every key of `keychains`, with the keychain it is in and whether it is a token key.
    private static func storedKeys(
        _ keychains: [any KeychainHandle], for invocation: Invocation
    ) throws -> [(key: AsymmetricKey, keychain: any KeychainHandle, inToken: Bool)] {
        var request = ItemRequest(itemClass: .key)
        request.returns = [.reference, .attributes]
        request.matchLimit = .all
        var keys: [(key: AsymmetricKey, keychain: any KeychainHandle, inToken: Bool)] = []
        for keychain in keychains {
            do {
                for result in try KeychainSession.unlockingIfNeeded(keychain, for: invocation, { try keychain.search(request) }) {
                    guard case .key(let key)? = result.reference else { continue }
                    let inToken = key.isHardwareBacked || result.attributes?[.tokenID] == .string(AsymmetricKey.secureEnclaveTokenID)
                    keys.append((key, keychain, inToken))
                }
            } catch let error as KeychainError where error.code == .itemNotFound {
                continue
            } catch {
                throw ToolError.api(api, error)
            }
        }
        return keys
    }

    private static func prompt(_ console: any Console) throws -> String {
        guard var bytes = console.readSecret(prompt: "Enter passphrase for the exported items: ") else {
            throw ToolError.status(errSecPassphraseRequired, api: api)
        }
        defer { SecretWiping.wipe(&bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
