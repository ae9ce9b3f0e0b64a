import Foundation
import KeychainCrypto

/// A PKCS#12 file (`.p12`, `.pfx`): what `SecPKCS12Import` and `security import` read and
/// `security export -f pkcs12` writes. Files from current OpenSSL (AES, PBKDF2) and from older
/// tools and macOS (RC2, 3DES, SHA-1 MACs, via OpenSSL's legacy provider) are read.
public struct PKCS12File: Sendable {
    /// The identity (certificate and matching private key), if the file has both.
    public var identity: Identity?
    /// The certificate of the identity, or the first certificate of a file without a key.
    public var certificate: Certificate?
    /// A private key with no certificate.
    public var privateKey: AsymmetricKey?
    /// The other certificates, ordered from the identity's issuer upwards where they chain.
    public var chain: [Certificate]
    /// The certificate bag's `friendlyName`.
    public var friendlyName: String?
    /// The certificate bag's `localKeyID`.
    public var localKeyID: Data?

    /// Reads and decrypts `data` with `password`.
    ///
    /// - Throws: `errSecAuthFailed` for a wrong password; `errSecDecode` for input that is not a
    ///   PKCS#12 file or cannot be decrypted. Never traps on malformed input.
    public init(data: Data, password: String) throws {
        let contents = try withEngineErrors {
            try data.withUnsafeBytes { try PKCS12Archive(der: $0) }.open(password: password)
        }
        var certificates = try contents.chain.map { certificate in try Certificate(der: withEngineErrors { try certificate.der() }) }
        var leaf = try contents.certificate.map { certificate in try Certificate(der: withEngineErrors { try certificate.der() }) }
        let key = try contents.privateKey.map { try AsymmetricKey(importing: $0) }
        if leaf == nil, key == nil, !certificates.isEmpty { leaf = certificates.removeFirst() }
        certificate = leaf
        if let leaf, let key, leaf.matches(privateKey: key) {
            identity = Identity(certificate: leaf, privateKey: key)
        } else {
            privateKey = key
        }
        chain = leaf.map { Self.order(certificates, from: $0) } ?? certificates
        friendlyName = contents.friendlyName
        localKeyID = contents.localKeyID
    }

    /// `certificates` with those that chain from `leaf` first, issuer after subject.
    static func order(_ certificates: [Certificate], from leaf: Certificate) -> [Certificate] {
        var remaining = certificates
        var ordered: [Certificate] = []
        var current = leaf
        while let index = remaining.firstIndex(where: { $0.subjectDER == current.issuerDER && $0 != current }) {
            current = remaining.remove(at: index)
            ordered.append(current)
        }
        return ordered + remaining
    }

    /// Writes a PKCS#12 file with OpenSSL's current algorithms (AES-256-CBC, PBKDF2,
    /// HMAC-SHA-256).
    ///
    /// - Parameters:
    ///   - identity: the certificate and key to include, if any.
    ///   - certificates: further certificates.
    ///   - password: the file's password.
    public static func export(identity: Identity?, certificates: [Certificate], password: String) throws -> Data {
        try withEngineErrors {
            try PKCS12Archive.create(
                key: identity?.privateKey.backing, certificate: identity?.certificate.backing,
                chain: certificates.map(\.backing), password: password,
                friendlyName: identity?.certificate.subjectSummary)
        }
    }
}

/// PEM armour (RFC 7468) for certificates: reading every `CERTIFICATE` block of a file and
/// writing one.
public enum PEM {
    /// The DER of every block labelled `label` in `text`, in order.
    public static func blocks(_ label: String, in text: String) -> [Data] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        var results: [Data] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            if let data = Data(base64Encoded: String(body)) { results.append(data) }
            rest = rest[stop.upperBound...]
        }
        return results
    }

    /// One PEM block with 64-character lines.
    public static func encode(_ data: Data, label: String) -> String {
        let base64 = data.base64EncodedString()
        var lines: [Substring] = []
        var index = base64.startIndex
        while index < base64.endIndex {
            let next = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(base64[index..<next])
            index = next
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }
}
