import Foundation
import KeychainCore
import Security

/// `add-certificates [-k keychain] file...`: adds each file's certificate (DER, or PEM blocks)
/// to the keychain, as `SecItemAdd` with `kSecValueRef` does. A certificate already present
/// prints `security: <file>: already in <keychain>` and makes the result 1; the other files are
/// still added. Nothing is printed on success.
struct AddCertificatesCommand: CommandDefinition {
    let name = "add-certificates"
    let usage = "[-k keychain] file..."
    let summary = "Add certificates to a keychain."
    let options = OptionParser("k:")

    func run(_ invocation: Invocation) throws -> Int32 {
        let scan = invocation.scan
        var keychainName: String?
        for element in scan.elements {
            guard case .option("k", let name) = element else { throw invocation.usageError(for: element) }
            keychainName = name
        }
        guard !scan.operands.isEmpty else { throw ToolError.usage(reason: nil) }
        let keychain = try keychainName.map(KeychainSession.open) ?? KeychainSession.openDefault()
        let where_ = keychainName.map { "\"\(KeychainSession.absolutePath(KeychainLocation.resolve($0)))\"" } ?? "default keychain"
        var result: Int32 = 0
        for path in scan.operands {
            let certificates = StoredObjects.certificates(inFile: try StoredObjects.read(path))
            guard !certificates.isEmpty else {
                invocation.console.error("security: \(path): \(ToolError.text(for: errSecUnknownFormat))\n")
                result = 1
                continue
            }
            for certificate in certificates {
                do {
                    let request = try RequestParser.request(for: .certificate(certificate), operation: .add)
                    _ = try keychain.add(request)
                } catch let error as KeychainError where error.code == .duplicateItem {
                    invocation.console.error("security: \(path): already in \(where_)\n")
                    result = 1
                } catch {
                    throw ToolError.api("SecCertificateAddToKeychain", error)
                }
            }
        }
        return result
    }
}
