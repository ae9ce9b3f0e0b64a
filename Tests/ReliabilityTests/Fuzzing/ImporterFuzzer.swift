import Foundation

@testable import KeychainCore

/// (b) What `SecCertificateCreateWithData`, `SecKeyCreateWithData`, `SecPKCS12Import` and
/// `security import` read from files: DER certificates, PEM, PKCS#12 archives and keys.
///
/// The first byte picks the reader. Properties: no reader crashes or traps; a certificate that
/// parses keeps exactly the bytes it was made from, and everything derived from it (summary,
/// names, public key, normalized names, item attributes) can be computed; an EC public key read
/// from its X9.63 form exports those same bytes again.
enum ImporterFuzzer {
    static func run(_ input: inout FuzzInput) throws {
        let selector = input.byte() % 5
        let bytes = Data(input.remainder())
        switch selector {
        case 0: try certificate(bytes)
        case 1:
            for block in PEM.blocks("CERTIFICATE", in: String(decoding: bytes, as: UTF8.self)) {
                try certificate(block)
            }
        case 2:
            _ = try? PKCS12File(data: bytes, password: "fuzz")
            _ = try? PKCS12File(data: bytes, password: "")
        case 3:
            _ = try? AsymmetricKey.importing(bytes, passphrase: nil)
            _ = try? AsymmetricKey.importing(bytes, passphrase: "fuzz")
        default: try keyRepresentation(bytes)
        }
    }

    private static func certificate(_ der: Data) throws {
        guard let certificate = try? Certificate(der: der) else { return }
        guard certificate.der == der else { throw FuzzFailure("a certificate did not keep its DER") }
        _ = certificate.subjectSummary
        _ = certificate.commonNames
        _ = certificate.normalizedIssuerSequence
        _ = certificate.normalizedSubjectSequence
        _ = certificate.subjectDescription
        _ = certificate.issuerDescription
        _ = certificate.itemAttributes
        _ = certificate.publicKeyHash
        _ = try? certificate.publicKey()
    }

    private static func keyRepresentation(_ data: Data) throws {
        for type in [KeyType.ellipticCurve, .rsa] {
            for keyClass in [KeyClass.public, .private] {
                guard let key = try? AsymmetricKey(externalRepresentation: data, type: type, keyClass: keyClass) else {
                    continue
                }
                let exported = try key.externalRepresentation().withUnsafeBytes { Data($0) }
                if type == .ellipticCurve && keyClass == .public && exported != data {
                    throw FuzzFailure("an EC public key did not export the X9.63 bytes it was read from")
                }
            }
        }
    }
}
