import Foundation
import KeychainCore
import Security

/// The certificates and identities of keychains, as the certificate and identity commands list
/// them: each with its item attributes and the keychain it lives in.
enum StoredObjects {
    /// A stored certificate.
    struct StoredCertificate {
        let certificate: Certificate
        let item: ItemResult
        let keychain: any KeychainHandle

        /// The item's label, else the subject summary.
        var label: String {
            item.attributes?[.label]?.stringValue ?? certificate.subjectSummary ?? ""
        }
    }

    /// A stored identity.
    struct StoredIdentity {
        let identity: Identity
        let item: ItemResult
        let keychain: any KeychainHandle

        /// The certificate's label, else its subject summary.
        var label: String {
            item.attributes?[.label]?.stringValue ?? identity.certificate.subjectSummary ?? ""
        }
    }

    /// Every certificate of `keychains`, in keychain then row order.
    static func certificates(in keychains: [any KeychainHandle], api: String) throws -> [StoredCertificate] {
        try search(.certificate, in: keychains, api: api).compactMap { item, keychain in
            guard case .certificate(let certificate)? = item.reference else { return nil }
            return StoredCertificate(certificate: certificate, item: item, keychain: keychain)
        }
    }

    /// Every identity of `keychains`.
    static func identities(in keychains: [any KeychainHandle], api: String) throws -> [StoredIdentity] {
        try search(.identity, in: keychains, api: api).compactMap { item, keychain in
            guard case .identity(let identity)? = item.reference else { return nil }
            return StoredIdentity(identity: identity, item: item, keychain: keychain)
        }
    }

    private static func search(_ itemClass: ItemClass, in keychains: [any KeychainHandle], api: String) throws -> [(ItemResult, any KeychainHandle)] {
        var request = ItemRequest(itemClass: itemClass)
        request.returns = [.attributes, .reference]
        request.matchLimit = .all
        var found: [(ItemResult, any KeychainHandle)] = []
        for keychain in keychains {
            do {
                found += try keychain.search(request).map { ($0, keychain) }
            } catch let error as KeychainError where error.code == .itemNotFound {
                continue
            } catch {
                throw ToolError.api(api, error)
            }
        }
        return found
    }

    /// The SHA-1 of `data` in uppercase hexadecimal, as `-Z` prints and matches it.
    static func sha1Hex(_ data: Data) -> String {
        ByteFormat.upperHex([UInt8]((try? CertificateDigest.sha1(data)) ?? Data()))
    }

    /// The SHA-256 of `data` in uppercase hexadecimal.
    static func sha256Hex(_ data: Data) -> String {
        ByteFormat.upperHex([UInt8]((try? CertificateDigest.sha256(data)) ?? Data()))
    }

    /// Reads a file named on the command line.
    ///
    /// - Throws: `ToolError.failed(1)` with `security: <path>: <reason>` (`Is a directory`, `No
    ///   such file or directory`, `Permission denied`, …).
    static func read(_ path: String) throws -> Data {
        switch FileDescriptor.readFile(path) {
        case .success(let bytes): return Data(bytes)
        case .failure(let error): throw ToolError.failed(result: 1, message: "security: \(path): \(error.text)\n")
        }
    }

    /// The certificates in a file: PEM `CERTIFICATE` blocks, or one DER certificate.
    static func certificates(inFile data: Data) -> [Certificate] {
        let text = String(decoding: data.prefix(1 << 20), as: UTF8.self)
        let blocks = PEM.blocks("CERTIFICATE", in: text)
        if !blocks.isEmpty { return blocks.compactMap { try? Certificate(der: $0) } }
        return (try? Certificate(der: data)).map { [$0] } ?? []
    }
}
