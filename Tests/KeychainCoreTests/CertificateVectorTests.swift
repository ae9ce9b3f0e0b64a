import Foundation
import Testing

@testable import KeychainCore

/// The fields `Certificate` extracts, which become a certificate item's stored attributes (its
/// primary key is type, issuer and serial number), pinned for certificates of many shapes
/// (Tests/TestVectors/certificates): string types, multi-valued names, negative and high-bit
/// serial numbers, v1 certificates, several alternative names; and the encodings it refuses.
@Suite("Certificate fields match the pinned test certificates")
struct CertificateVectorTests {
    let expected: [String: [String: Any]]

    init() throws {
        expected = try TestVectors.json("certificates/expected.json")["certificates"] as? [String: [String: Any]] ?? [:]
    }

    private func der(_ name: String) throws -> Data {
        try Data(contentsOf: TestVectors.directory.appendingPathComponent("certificates/\(name).der"))
    }

    private static func hex(_ data: Data?) -> String? { data?.hex }

    @Test("Every accepted certificate gives the pinned version, serial, names, key ID, key hash, e-mails, DNS names and attributes")
    func acceptedCertificates() throws {
        let accepted = expected.filter { $0.value["refused"] == nil }
        #expect(accepted.count >= 15)
        for (name, fields) in accepted.sorted(by: { $0.key < $1.key }) {
            let certificate = try Certificate(der: der(name))
            #expect(certificate.version == fields["version"] as? Int, "\(name)")
            #expect(certificate.serialNumber.hex == fields["serialNumber"] as? String, "\(name)")
            #expect(Self.hex(certificate.subjectKeyID) == fields["subjectKeyID"] as? String, "\(name)")
            #expect(certificate.publicKeyHash.hex == fields["publicKeyHash"] as? String, "\(name)")
            #expect(certificate.emailAddresses == fields["emailAddresses"] as? [String], "\(name)")
            #expect(certificate.dnsNames == fields["dnsNames"] as? [String], "\(name)")
            #expect(certificate.subjectSummary == fields["subjectSummary"] as? String, "\(name)")
            #expect(certificate.commonNames == fields["commonNames"] as? [String], "\(name)")
            #expect(certificate.issuerDER.hex == fields["issuerDER"] as? String, "\(name)")
            #expect(certificate.subjectDER.hex == fields["subjectDER"] as? String, "\(name)")
            #expect(certificate.normalizedIssuerSequence.hex == fields["normalizedIssuerSequence"] as? String, "\(name)")
            #expect(certificate.normalizedSubjectSequence.hex == fields["normalizedSubjectSequence"] as? String, "\(name)")
            #expect(certificate.subjectDescription == fields["subjectDescription"] as? String, "\(name)")
            #expect(certificate.issuerDescription == fields["issuerDescription"] as? String, "\(name)")
            let attributes = try #require(fields["itemAttributes"] as? [String: Any])
            #expect(Set(certificate.itemAttributes.keys.map(\.name)) == Set(attributes.keys), "\(name)")
            for (attribute, value) in certificate.itemAttributes {
                let pinned = attributes[attribute.name]
                switch value {
                case .data(let data): #expect(data.hex == pinned as? String, "\(name) \(attribute.name)")
                case .integer(let number): #expect(Int(number) == pinned as? Int, "\(name) \(attribute.name)")
                default: Issue.record("\(name): \(attribute.name) is neither data nor a number")
                }
            }
            // The issuer Name a query gives is normalized to the stored form.
            #expect(
                Certificate.normalizedNameAttribute(certificate.issuerDER).hex == attributes[AttributeDescriptor.issuer.name] as? String,
                "\(name)")
        }
    }

    @Test("BER lengths, and key identifier or alternative name values that do not decode, are errSecDecode")
    func refusedCertificates() throws {
        let refused = expected.filter { $0.value["refused"] != nil }
        #expect(refused.count >= 8)
        for (name, fields) in refused.sorted(by: { $0.key < $1.key }) {
            let der = try der(name)
            let error = #expect(throws: KeychainError.self, "\(name)") { try Certificate(der: der) }
            #expect(error.map { "\($0.code)" } == fields["refused"] as? String, "\(name)")
        }
    }
}
