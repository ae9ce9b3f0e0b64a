import Foundation

/// A minimal reader and writer of DER (ITU-T X.690) for the structures the keychain reads
/// itself: distinguished names (a certificate's issuer and subject as OpenSSL hands them over, a
/// name given in a query) and ECDSA signatures. Certificates themselves are parsed by OpenSSL
/// (`X509Certificate`); this reader only checks their encoding's lengths
/// (`requireDefiniteLengths`). Only definite lengths; anything malformed is `errSecDecode`.
struct DERNode: Sendable {
    /// The identifier octet (tags above 30 are not used by the structures read here).
    let tag: UInt8
    /// The content octets.
    let content: ArraySlice<UInt8>
    /// The whole encoding (tag, length and content).
    let encoded: ArraySlice<UInt8>

    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let octetString: UInt8 = 0x04
    static let objectIdentifier: UInt8 = 0x06
    static let utf8String: UInt8 = 0x0C
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31

    /// Reads one node at the start of `bytes`; returns it and what follows.
    static func read(_ bytes: ArraySlice<UInt8>) throws -> (DERNode, ArraySlice<UInt8>) {
        var index = bytes.startIndex
        func next() throws -> UInt8 {
            guard index < bytes.endIndex else { throw KeychainError(.decode, "truncated DER") }
            defer { index += 1 }
            return bytes[index]
        }
        let tag = try next()
        guard tag & 0x1F != 0x1F else { throw KeychainError(.decode, "high-tag-number DER is not supported") }
        var length = Int(try next())
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4 else { throw KeychainError(.decode, "unsupported DER length") }
            length = 0
            for _ in 0..<count { length = length << 8 | Int(try next()) }
        }
        guard length <= bytes.endIndex - index else { throw KeychainError(.decode, "truncated DER") }
        let content = bytes[index..<(index + length)]
        let node = DERNode(tag: tag, content: content, encoded: bytes[bytes.startIndex..<(index + length)])
        return (node, bytes[(index + length)...])
    }

    /// Reads exactly one node from `bytes`.
    static func parse<Bytes: Collection>(_ bytes: Bytes) throws -> DERNode where Bytes.Element == UInt8 {
        let (node, rest) = try read(ArraySlice(bytes))
        guard rest.isEmpty else { throw KeychainError(.decode, "trailing bytes after DER") }
        return node
    }

    /// Checks that `bytes` is a run of DER elements whose lengths, at every depth of nesting, are
    /// definite: BER's indefinite-length form (which OpenSSL also reads) is `errSecDecode`, as is
    /// any element this reader cannot read (a truncated one, a tag number above 30).
    static func requireDefiniteLengths(_ bytes: Data) throws {
        // Iterative, so that deep nesting cannot exhaust the stack.
        var pending = [ArraySlice([UInt8](bytes))]
        while var rest = pending.popLast() {
            while !rest.isEmpty {
                let (node, remainder) = try read(rest)
                if node.tag & constructed != 0 { pending.append(node.content) }
                rest = remainder
            }
        }
    }

    /// The bit of an identifier octet that marks a constructed encoding.
    static let constructed: UInt8 = 0x20

    /// The nodes inside a constructed node.
    func children() throws -> [DERNode] {
        var nodes: [DERNode] = []
        var rest = content
        while !rest.isEmpty {
            let (node, remainder) = try DERNode.read(rest)
            nodes.append(node)
            rest = remainder
        }
        return nodes
    }

    /// The dotted form of an OBJECT IDENTIFIER ("2.5.4.3").
    var objectIdentifierString: String? {
        guard tag == DERNode.objectIdentifier, let first = content.first else { return nil }
        var parts = [Int(first) / 40, Int(first) % 40]
        var value = 0
        for byte in content.dropFirst() {
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 {
                parts.append(value)
                value = 0
            }
        }
        return parts.map(String.init).joined(separator: ".")
    }

    /// Encodes a node.
    static func encode(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var bytes = [tag]
        if content.count < 0x80 {
            bytes.append(UInt8(content.count))
        } else {
            var length = content.count
            var octets: [UInt8] = []
            while length > 0 {
                octets.insert(UInt8(length & 0xFF), at: 0)
                length >>= 8
            }
            bytes.append(0x80 | UInt8(octets.count))
            bytes += octets
        }
        return bytes + content
    }

    /// A DER INTEGER holding the unsigned big-endian `magnitude`.
    static func unsignedInteger<Bytes: Collection>(_ magnitude: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var digits = Array(magnitude.drop { $0 == 0 })
        if digits.isEmpty { digits = [0] }
        if digits[0] & 0x80 != 0 { digits.insert(0, at: 0) }
        return encode(tag: integer, digits)
    }
}

/// Converts ECDSA signatures between X9.62 DER and RFC 4754 `r ‖ s`.
enum ECDSASignatureFormat {
    /// `r ‖ s` (each `fieldSize` bytes) as DER; nil when the length is not `2 × fieldSize`.
    static func der(fromRaw raw: Data, fieldSize: Int) -> Data? {
        guard raw.count == 2 * fieldSize else { return nil }
        let bytes = [UInt8](raw)
        let body = DERNode.unsignedInteger(bytes[0..<fieldSize]) + DERNode.unsignedInteger(bytes[fieldSize...])
        return Data(DERNode.encode(tag: DERNode.sequence, body))
    }

    /// DER as `r ‖ s`, each left-padded to `fieldSize`; nil when malformed.
    static func raw(fromDER der: Data, fieldSize: Int) -> Data? {
        guard let node = try? DERNode.parse([UInt8](der)), node.tag == DERNode.sequence,
            let parts = try? node.children(), parts.count == 2,
            parts.allSatisfy({ $0.tag == DERNode.integer })
        else { return nil }
        var output = Data()
        for part in parts {
            let magnitude = part.content.drop { $0 == 0 }
            guard magnitude.count <= fieldSize else { return nil }
            output.append(Data(repeating: 0, count: fieldSize - magnitude.count))
            output.append(contentsOf: magnitude)
        }
        return output
    }
}
