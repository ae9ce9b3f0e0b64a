import Foundation
import KeychainCore
import Security

/// `find-certificate [-a] [-c name] [-e emailAddress] [-m] [-p] [-Z] [keychain...]`.
///
/// Prints the first matching certificate (every match with `-a`): with `-Z` its
/// `SHA-256 hash: <HEX>` and `SHA-1 hash: <HEX>`, with `-m` `email addresses: a, b`, then its PEM
/// with `-p`, otherwise its attribute dump. `-c` matches a substring of the common name or label,
/// `-e` an email address (ignoring case). No match is errSecItemNotFound (exit 44).
struct FindCertificateCommand: CommandDefinition {
    let name = "find-certificate"
    let usage = """
        [-a] [-c name] [-e emailAddress] [-m] [-p] [-Z] [keychain...]
            -a  Find all matching certificates, not just the first one
            -c  Match on "name" (a substring of the common name or label)
            -e  Match on "emailAddress"
            -m  Show the email addresses in the certificate
            -p  Output certificate in pem format
            -Z  Print SHA-256 (and SHA-1) hash of the certificate
        If no keychains are specified to search, the default search list is used.
        """
    let summary = "Find a certificate item."
    let options = OptionParser("ac:e:mpZ")

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var all = false, showEmail = false, pem = false, hashes = false
        var name: String?
        var email: String?
        for element in scan.elements {
            switch element {
            case .option("a", _): all = true
            case .option("c", let value): name = value
            case .option("e", let value): email = value
            case .option("m", _): showEmail = true
            case .option("p", _): pem = true
            case .option("Z", _): hashes = true
            default: throw invocation.usageError(for: element)
            }
        }
        let keychains = try KeychainSession.searchList(scan.operands)
        var matches = try StoredObjects.certificates(in: keychains, api: "SecKeychainSearchCopyNext").filter { stored in
            if let name, !(stored.certificate.commonNames + [stored.label]).contains(where: { $0.contains(name) }) {
                return false
            }
            if let email, !stored.certificate.emailAddresses.contains(where: { $0.caseInsensitiveCompare(email) == .orderedSame }) {
                return false
            }
            return true
        }
        guard !matches.isEmpty else { throw ToolError.status(errSecItemNotFound, api: "SecKeychainSearchCopyNext") }
        if !all { matches = Array(matches.prefix(1)) }
        for stored in matches {
            let der = stored.certificate.der
            if hashes {
                invocation.console.output("SHA-256 hash: \(StoredObjects.sha256Hex(der))\n")
                invocation.console.output("SHA-1 hash: \(StoredObjects.sha1Hex(der))\n")
            }
            if showEmail {
                invocation.console.output("email addresses: \(stored.certificate.emailAddresses.joined(separator: ", "))\n")
            }
            if pem {
                invocation.console.output(PEM.encode(der, label: "CERTIFICATE"))
            } else {
                invocation.console.writeOutput(ItemPrinter.render(stored.item, keychainPath: stored.keychain.path))
            }
        }
        return 0
    }
}
