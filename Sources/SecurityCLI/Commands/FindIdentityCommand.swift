import Foundation
import KeychainCore
import Security

/// `find-identity [-p policy] [-s string] [-v] [keychain...]`, in macOS's layout:
///
/// ```
///
/// Policy: X.509 Basic
///   Matching identities
///   1) 0A1B…(SHA-1 of the certificate) "label"
///      1 identities found
///
///   Valid identities only
///   1) 0A1B… "label"
///      1 valid identities found
/// ```
///
/// An identity is valid when its certificate chains (through the keychain's certificates) to a
/// trust anchor of the system's OpenSSL store and is within its validity period; invalid ones
/// show macOS's reason after the label (`CSSMERR_TP_NOT_TRUSTED`, `CSSMERR_TP_CERT_EXPIRED`).
/// `-v` prints only the valid part. `-s` keeps identities whose certificate names the string
/// (common name, DNS name or email address).
struct FindIdentityCommand: CommandDefinition {
    let name = "find-identity"
    let usage = """
        [-p policy] [-s string] [-v] [keychain...]
            -p  Specify policy to evaluate (multiple -p options are allowed)
                Supported policies: basic, ssl-client, ssl-server, smime, eap,
                ipsec, ichat, codesigning, sys-default, sys-kerberos-kdc
            -s  Specify optional policy-specific string (e.g. DNS hostname for SSL,
                or RFC822 email address for S/MIME)
            -v  Show valid identities only (default is to show all identities)
        If no keychains are specified to search, the default search list is used.
        """
    let summary = "Find an identity (certificate + private key)."
    let options = OptionParser("p:s:v")

    /// macOS's display names for the policies `-p` accepts.
    static let policies: [String: String] = [
        "basic": "X.509 Basic", "ssl-client": "SSL (client)", "ssl-server": "SSL (server)", "smime": "S/MIME",
        "eap": "EAP", "ipsec": "IPsec", "ichat": "iChat", "codesigning": "Code Signing",
        "sys-default": "System Default", "sys-kerberos-kdc": "System Kerberos KDC",
    ]

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        let policies = Self.policies
        var policyNames: [String] = []
        var filter: String?
        var validOnly = false
        for element in scan.elements {
            switch element {
            case .option("p", let name?):
                guard policies[name] != nil else { throw ToolError.usage(reason: "unknown policy \"\(name)\"") }
                policyNames.append(name)
            case .option("s", let value): filter = value
            case .option("v", _): validOnly = true
            default: throw invocation.usageError(for: element)
            }
        }
        let keychains = try KeychainSession.searchList(scan.operands)
        let api = "SecIdentitySearchCopyNext"
        let identities = try StoredObjects.identities(in: keychains, api: api).filter { stored in
            guard let filter else { return true }
            let certificate = stored.identity.certificate
            return (certificate.commonNames + certificate.dnsNames + certificate.emailAddresses).contains {
                $0.caseInsensitiveCompare(filter) == .orderedSame
            }
        }
        let intermediates = try StoredObjects.certificates(in: keychains, api: api).map(\.certificate)
        let rows = identities.map { stored in
            (hash: StoredObjects.sha1Hex(stored.identity.certificate.der), label: stored.label,
             failure: stored.identity.certificate.trustFailure(intermediates: intermediates))
        }
        var text = ""
        for policy in policyNames.isEmpty ? ["basic"] : policyNames {
            text += "\nPolicy: \(policies[policy]!)\n"
            if !validOnly {
                text += "  Matching identities\n"
                for (index, row) in rows.enumerated() {
                    text += String(format: "%3d) ", index + 1) + "\(row.hash) \"\(row.label)\""
                    text += row.failure.map { " (\($0))" } ?? ""
                    text += "\n"
                }
                text += String(format: "%6d identities found\n", rows.count) + "\n"
            }
            text += "  Valid identities only\n"
            let valid = rows.filter { $0.failure == nil }
            for (index, row) in valid.enumerated() {
                text += String(format: "%3d) ", index + 1) + "\(row.hash) \"\(row.label)\"\n"
            }
            text += String(format: "%6d valid identities found\n", valid.count)
        }
        invocation.console.output(text)
        return 0
    }
}
