import Foundation
import KeychainCore
import Security

/// `import inputfile [-k keychain] [-t type] [-f format] [-w] [-x] [-P passphrase] [-a name value] [-A|-T app]`.
///
/// Reads a PKCS#12 file (`.p12`/`.pfx` or `-f pkcs12`; current and legacy algorithms), PEM or DER
/// certificates, or PEM/DER keys, and adds what it holds: an identity as its certificate and
/// private key, further certificates, keys. Prints `N identity|identities imported.`,
/// `N key|keys imported.` and `N certificate|certificates imported.` for what was added.
///
/// The PKCS#12 password comes from `-P`, else it is asked for (the prompt goes to standard error
/// when standard input is not a terminal). A wrong password is errSecAuthFailed (exit 51);
/// unreadable input errSecUnknownFormat; input whose items all exist already errSecDuplicateItem
/// (exit 45), each reported as `security: SecKeychainItemImport: <message>`. An input that cannot
/// be read (a directory, a missing file) is `security: <file>: <reason>` (exit 1). `-t` and `-f`
/// take macOS's names only (`typeNames`, `formatNames`; anything else is bad usage); the file's
/// contents decide how it is read unless `-f pkcs12` says so. `-x` stores keys as not
/// extractable (`kSecAttrIsExtractable` = 0); `-w`, `-a`, `-A` and `-T` are accepted (wrapped
/// keys and access lists do not exist here).
struct ImportCommand: CommandDefinition {
    /// The API name failures are reported under.
    static let api = "SecKeychainItemImport"
    /// The item types `-t` accepts (macOS's `keychain_import`).
    static let typeNames: Set = ["pub", "priv", "session", "cert", "agg"]
    /// The formats `-f` accepts (macOS's `keychain_import`).
    static let formatNames: Set = [
        "openssl", "openssh1", "openssh2", "bsafe", "raw", "pkcs7", "pkcs8", "pkcs12", "netscape", "x509", "pemseq",
    ]

    let name = "import"
    let usage = """
        inputfile [-k keychain] [-t type] [-f format] [-w] [-P passphrase] [options...]
            -k  Target keychain to import into
            -t  Type = pub|priv|session|cert|agg
            -f  Format = openssl|openssh1|openssh2|bsafe|raw|pkcs7|pkcs8|pkcs12|netscape|x509|pemseq
            -w  Specify that private keys are wrapped and must be unwrapped on import
            -x  Specify that private keys are non-extractable after being imported
            -P  Specify wrapping passphrase immediately (default is a prompt)
            -a  Specify name and value of extended attribute (can be used multiple times)
            -A  Allow any application to access the imported key without warning (accepted)
            -T  Specify an application which may access the imported key (accepted)
        """
    let summary = "Import items into a keychain."
    let options = OptionParser("k:t:f:P:wxa:hAT:", secrets: ["P"], pairs: ["a"], leadingOperands: 1)

    func run(_ invocation: Invocation) throws -> Int32 {
        let api = Self.api
        let scan = invocation.scan
        var keychainName: String?
        var format: String?
        var passphrase: String?
        var extractable = true
        for element in scan.elements {
            switch element {
            case .option("k", let name): keychainName = name
            case .option("t", let value?):
                guard Self.typeNames.contains(value) else { throw ToolError.usage(reason: "unknown import type \"\(value)\"") }
            case .option("f", let value?):
                guard Self.formatNames.contains(value) else { throw ToolError.usage(reason: "unknown import format \"\(value)\"") }
                format = value
            case .secret("P", let value): passphrase = try OptionParser.text(ofSecret: value, option: "P")
            case .option("x", _): extractable = false
            case .option("w", _), .option("A", _), .option("T", _), .pair("a", _, _): break
            default: throw invocation.usageError(for: element)
            }
        }
        guard scan.operands.count == 1, let path = scan.operands.first, !path.isEmpty, !path.hasPrefix("-") else {
            throw ToolError.usage(reason: nil)
        }
        let keychain = try keychainName.map(KeychainSession.open) ?? KeychainSession.openDefault()
        let data = try StoredObjects.read(path)
        let contents = try ImportContents.read(
            data, path: path, format: format, console: invocation.console, passphrase: passphrase)

        var counts = (identities: 0, keys: 0, certificates: 0)
        var sawDuplicate = false
        func add(_ reference: ItemReference, _ attributes: ItemAttributes = [:]) throws -> Bool {
            do {
                _ = try keychain.add(try RequestParser.request(for: reference, attributes: attributes, operation: .add))
                return true
            } catch let error as KeychainError where error.code == .duplicateItem {
                sawDuplicate = true
                return false
            } catch {
                throw ToolError.api(api, error)
            }
        }
        let keyFlags: ItemAttributes = extractable ? [:] : [.isExtractable: .integer(0)]
        for identity in contents.identities where try add(.identity(identity), keyFlags) {
            counts.identities += 1
        }
        for key in contents.keys {
            var attributes = keyFlags
            attributes[.label] = .string(key.keyClass == .private ? "Imported Private Key" : "Imported Public Key")
            if try add(.key(key), attributes) { counts.keys += 1 }
        }
        for certificate in contents.certificates where try add(.certificate(certificate)) {
            counts.certificates += 1
        }
        if counts.identities + counts.keys + counts.certificates == 0 {
            throw ToolError.status(sawDuplicate ? errSecDuplicateItem : errSecUnknownFormat, api: api)
        }
        var text = ""
        if counts.identities > 0 { text += "\(counts.identities) \(counts.identities == 1 ? "identity" : "identities") imported.\n" }
        if counts.keys > 0 { text += "\(counts.keys) \(counts.keys == 1 ? "key" : "keys") imported.\n" }
        if counts.certificates > 0 {
            text += "\(counts.certificates) \(counts.certificates == 1 ? "certificate" : "certificates") imported.\n"
        }
        invocation.console.output(text)
        return 0
    }
}

/// What an import file holds.
struct ImportContents {
    var identities: [Identity] = []
    var keys: [AsymmetricKey] = []
    var certificates: [Certificate] = []

    /// Reads `data` in the format `-f` names, else the one its name or contents suggest.
    static func read(
        _ data: Data, path: String, format: String?, console: any Console, passphrase: String?
    ) throws -> ImportContents {
        let lowered = path.lowercased()
        let text = String(decoding: data.prefix(1 << 20), as: UTF8.self)
        let isPKCS12 = format == "pkcs12" || lowered.hasSuffix(".p12") || lowered.hasSuffix(".pfx")
            || (format == nil && !text.contains("-----BEGIN") && (try? Certificate(der: data)) == nil
                && (try? AsymmetricKey.importing(data, passphrase: nil)) == nil)
        var contents = ImportContents()
        if isPKCS12 {
            let password = try passphrase ?? prompt(console, "Enter passphrase for \(path): ")
            let file: PKCS12File
            do {
                file = try PKCS12File(data: data, password: password)
            } catch let error as KeychainError where error.code == .decode {
                throw ToolError.status(errSecUnknownFormat, api: ImportCommand.api)
            } catch {
                throw ToolError.api(ImportCommand.api, error)
            }
            if let identity = file.identity {
                contents.identities.append(identity)
            } else {
                contents.keys += file.privateKey.map { [$0] } ?? []
                contents.certificates += file.certificate.map { [$0] } ?? []
            }
            contents.certificates += file.chain
            return contents
        }
        contents.certificates = StoredObjects.certificates(inFile: data)
        if text.contains("KEY-----") || contents.certificates.isEmpty {
            let needsPassphrase = text.contains("ENCRYPTED PRIVATE KEY") && passphrase == nil
            let phrase = needsPassphrase ? try prompt(console, "Enter passphrase for \(path): ") : passphrase
            do {
                contents.keys.append(try AsymmetricKey.importing(data, passphrase: phrase))
            } catch let error as KeychainError where contents.certificates.isEmpty || error.code != .unknownFormat {
                throw ToolError.api(ImportCommand.api, error.code == .decode ? KeychainError(.authFailed, "wrong passphrase") : error)
            } catch {}
        }
        // A key and its certificate in one file form an identity.
        if let key = contents.keys.first, let index = contents.certificates.firstIndex(where: { $0.matches(privateKey: key) }) {
            contents.identities.append(Identity(certificate: contents.certificates.remove(at: index), privateKey: key))
            contents.keys.removeFirst()
        }
        return contents
    }

    private static func prompt(_ console: any Console, _ text: String) throws -> String {
        guard var bytes = console.readSecret(prompt: text) else {
            throw ToolError.status(errSecPassphraseRequired, api: ImportCommand.api)
        }
        defer { SecretWiping.wipe(&bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
