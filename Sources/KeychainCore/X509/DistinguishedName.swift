import Foundation

/// An X.501 `Name` (a certificate's issuer or subject): its attributes in order, the forms Apple
/// stores, and the summary Apple shows.
struct DistinguishedName: Sendable {
    /// One attribute of a relative distinguished name.
    struct Attribute: Sendable {
        /// The attribute type ("2.5.4.3" for the common name).
        let type: String
        /// The value's DER tag.
        let valueTag: UInt8
        /// The value's content octets.
        let value: ArraySlice<UInt8>
        /// The value as text, when it is one of the directory string types.
        var text: String? { DistinguishedName.decodeString(tag: valueTag, value) }
    }

    static let commonName = "2.5.4.3"
    static let organizationName = "2.5.4.10"
    static let organizationalUnitName = "2.5.4.11"
    static let emailAddress = "1.2.840.113549.1.9.1"

    /// The relative distinguished names, each a list of attributes.
    let relativeNames: [[Attribute]]
    /// The DER of the whole `Name`.
    let der: Data

    /// Reads a `Name` node.
    init(_ node: DERNode) throws {
        guard node.tag == DERNode.sequence else { throw KeychainError(.decode, "a Name is not a SEQUENCE") }
        relativeNames = try node.children().map { set in
            guard set.tag == DERNode.set else { throw KeychainError(.decode, "an RDN is not a SET") }
            return try set.children().map { pair in
                let parts = try pair.children()
                guard pair.tag == DERNode.sequence, parts.count == 2, let type = parts[0].objectIdentifierString else {
                    throw KeychainError(.decode, "malformed AttributeTypeAndValue")
                }
                return Attribute(type: type, valueTag: parts[1].tag, value: parts[1].content)
            }
        }
        der = Data(node.encoded)
    }

    /// Every attribute, in order.
    var attributes: [Attribute] { relativeNames.flatMap { $0 } }

    /// The text values of attributes of `type`, in order.
    func values(of type: String) -> [String] {
        attributes.filter { $0.type == type }.compactMap(\.text)
    }

    /// Apple's normalized form (`SecCertificateCopyNormalizedIssuerSequence`): every string
    /// value upper-cased, with leading and trailing white space removed and inner runs of white
    /// space reduced to one space, re-encoded as UTF8String; other values unchanged.
    var normalizedSequence: Data {
        var body: [UInt8] = []
        for relativeName in relativeNames {
            var set: [UInt8] = []
            for attribute in relativeName {
                let oid = try? DERNode.parse(Self.encodeOID(attribute.type))
                var pair = oid.map { Array($0.encoded) } ?? []
                if let text = attribute.text {
                    let normalized = text.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
                    pair += DERNode.encode(tag: DERNode.utf8String, Array(normalized.utf8))
                } else {
                    pair += DERNode.encode(tag: attribute.valueTag, Array(attribute.value))
                }
                set += DERNode.encode(tag: DERNode.sequence, pair)
            }
            body += DERNode.encode(tag: DERNode.set, set)
        }
        return Data(DERNode.encode(tag: DERNode.sequence, body))
    }

    /// The normalized form without its outer SEQUENCE header: what Apple stores as
    /// `kSecAttrIssuer` and `kSecAttrSubject`.
    var normalizedContent: Data {
        let sequence = normalizedSequence
        guard let node = try? DERNode.parse([UInt8](sequence)) else { return Data() }
        return Data(node.content)
    }

    /// Apple's summary of a name: the last common name; else the organizational unit; else the
    /// organization; else the first printable value.
    var summary: String? {
        for type in [Self.commonName, Self.organizationalUnitName, Self.organizationName] {
            if let value = values(of: type).last(where: { !$0.isEmpty }) { return value }
        }
        return attributes.compactMap(\.text).first { !$0.isEmpty }
    }

    /// A one-line description ("CN=Example, O=Org") for messages and the CLI.
    var description: String {
        let names = [Self.commonName: "CN", Self.organizationName: "O", Self.organizationalUnitName: "OU",
                     "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", Self.emailAddress: "emailAddress"]
        return attributes.map { "\(names[$0.type] ?? $0.type)=\($0.text ?? "#")" }.joined(separator: ", ")
    }

    /// Decodes the directory string types (UTF8String, PrintableString, IA5String,
    /// TeletexString as Latin-1, BMPString, UniversalString).
    static func decodeString(tag: UInt8, _ value: ArraySlice<UInt8>) -> String? {
        switch tag {
        case 0x0C, 0x13, 0x16, 0x12, 0x1A: return String(bytes: value, encoding: .utf8)
        case 0x14: return String(bytes: value, encoding: .isoLatin1)
        case 0x1E: return String(bytes: value, encoding: .utf16BigEndian)
        case 0x1C: return String(bytes: value, encoding: .utf32BigEndian)
        default: return nil
        }
    }

    /// The DER of an OBJECT IDENTIFIER in dotted form.
    static func encodeOID(_ dotted: String) -> [UInt8] {
        let parts = dotted.split(separator: ".").compactMap { Int($0) }
        guard parts.count >= 2 else { return [] }
        var content = [UInt8(parts[0] * 40 + parts[1])]
        for var part in parts.dropFirst(2) {
            var chunk = [UInt8(part & 0x7F)]
            part >>= 7
            while part > 0 {
                chunk.insert(UInt8(0x80 | (part & 0x7F)), at: 0)
                part >>= 7
            }
            content += chunk
        }
        return DERNode.encode(tag: DERNode.objectIdentifier, content)
    }
}
