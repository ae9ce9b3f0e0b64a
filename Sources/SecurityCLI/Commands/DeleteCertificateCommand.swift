import Foundation
import KeychainCore
import Security

/// `delete-certificate [-c name] [-Z hash] [-t] [keychain...]` and
/// `delete-identity [-c name] [-Z hash] [-t] [keychain...]`.
///
/// The certificate (or identity) is named by its common name (`-c`, exact) or the SHA-1 of its
/// DER (`-Z`, hexadecimal, any case). `delete-identity` deletes the certificate and its private
/// key, keeping a key another certificate still uses (as `SecItemDelete` with an identity ref
/// does). A name that matches several items is refused (use `-Z`, exit 1); nothing matching is
/// errSecItemNotFound (exit 44). `-t` (trust settings) is accepted; there are none to remove.
struct DeleteCertificateCommand: CommandDefinition {
    /// Whether this is `delete-identity` (the certificate and its private key).
    let identity: Bool

    var name: String { identity ? "delete-identity" : "delete-certificate" }
    var summary: String {
        identity ? "Delete an identity (certificate + private key) from a keychain." : "Delete a certificate from a keychain."
    }
    var usage: String {
        let what = identity ? "identity" : "certificate"
        return """
            [-c name] [-Z hash] [-t] [keychain...]
                -c  Specify \(what) to delete by its common name
                -Z  Specify \(what) to delete by its SHA-1 hash value
                -t  Also delete user trust settings for this \(identity ? "identity certificate" : "certificate")
            """
    }
    let options = OptionParser("c:Z:t")

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var name: String?
        var hash: String?
        for element in scan.elements {
            switch element {
            case .option("c", let value): name = value
            case .option("Z", let value): hash = value?.uppercased()
            case .option("t", _): break
            default: throw invocation.usageError(for: element)
            }
        }
        guard name != nil || hash != nil else { throw ToolError.usage(reason: nil) }
        let keychains = try KeychainSession.searchList(scan.operands)
        let api = "SecKeychainItemDelete"
        func selected(_ certificate: Certificate) -> Bool {
            if let hash, StoredObjects.sha1Hex(certificate.der) != hash { return false }
            if let name, !certificate.commonNames.contains(name) { return false }
            return true
        }
        let what = identity ? "identity" : "certificate"
        let description = name.map { "\"\($0)\"" } ?? hash ?? ""
        let reference: ItemReference
        let keychain: any KeychainHandle
        if identity {
            let matches = try StoredObjects.identities(in: keychains, api: api).filter { selected($0.identity.certificate) }
            try Self.requireOne(matches.count, what: what, description: description)
            reference = .identity(matches[0].identity)
            keychain = matches[0].keychain
        } else {
            let matches = try StoredObjects.certificates(in: keychains, api: api).filter { selected($0.certificate) }
            try Self.requireOne(matches.count, what: what, description: description)
            reference = .certificate(matches[0].certificate)
            keychain = matches[0].keychain
        }
        do {
            let request = try RequestParser.request(for: reference, operation: .delete)
            try keychain.delete(request)
        } catch {
            throw ToolError.api(api, error)
        }
        return 0
    }

    private static func requireOne(_ count: Int, what: String, description: String) throws {
        if count == 0 {
            throw ToolError.failed(
                result: errSecItemNotFound,
                message: "Unable to delete \(what) matching \(description): \(ToolError.text(for: errSecItemNotFound))\n")
        }
        if count > 1 {
            throw ToolError.failed(
                result: 1, message: "security: \(description) matches more than one \(what); use -Z with its SHA-1 hash\n")
        }
    }
}
