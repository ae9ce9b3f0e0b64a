import Foundation

/// The plaintext layout of an item's encrypted metadata: a version byte, an entry count, then
/// `name, tag, value` entries. Decoding checks every length and throws `errSecDecode` on anything
/// malformed, so a damaged record can never crash the process.
enum RecordCodec {
    private static let version: UInt8 = 1

    private enum Tag: UInt8 {
        case string = 1
        case data = 2
        case integer = 3
        case date = 4
    }

    /// Encodes attribute values (the access control travels as data under `accc`).
    static func encode(_ attributes: [String: AttributeValue]) -> Data {
        var output: [UInt8] = [version]
        output.reserveCapacity(256)
        appendInteger(UInt32(attributes.count), to: &output)
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            output.append(UInt8(name.utf8.count))
            output.append(contentsOf: name.utf8)
            switch value {
            case .string(let text):
                output.append(Tag.string.rawValue)
                appendInteger(UInt32(text.utf8.count), to: &output)
                output.append(contentsOf: text.utf8)
            case .data(let data):
                output.append(Tag.data.rawValue)
                appendInteger(UInt32(data.count), to: &output)
                output.append(contentsOf: data)
            case .integer(let number):
                output.append(Tag.integer.rawValue)
                appendInteger(UInt64(bitPattern: number), to: &output)
            case .date(let date):
                output.append(Tag.date.rawValue)
                appendInteger(date.timeIntervalSinceReferenceDate.bitPattern, to: &output)
            }
        }
        defer { output.withUnsafeMutableBytes { SecureBytes.wipe($0) } }
        return Data(output)
    }

    /// Decodes what `encode` produced.
    static func decode<Bytes: ContiguousBytes>(_ bytes: Bytes) throws -> [String: AttributeValue] {
        try bytes.withUnsafeBytes { buffer in
            var reader = Reader(buffer: buffer)
            guard try reader.byte() == version else { throw KeychainError(.decode, "unknown record version") }
            let count = try reader.integer(UInt32.self)
            var attributes: [String: AttributeValue] = [:]
            attributes.reserveCapacity(Int(min(count, 64)))
            for _ in 0..<count {
                let nameLength = Int(try reader.byte())
                let name = try knownName(try reader.bytes(nameLength))
                guard let tag = Tag(rawValue: try reader.byte()) else {
                    throw KeychainError(.decode, "unknown value tag in record")
                }
                switch tag {
                case .string:
                    let length = Int(try reader.integer(UInt32.self))
                    guard let text = String(validatingUTF8Bytes: try reader.bytes(length)) else {
                        throw KeychainError(.decode, "record text is not UTF-8")
                    }
                    attributes[name] = .string(text)
                case .data:
                    let length = Int(try reader.integer(UInt32.self))
                    attributes[name] = .data(Data(try reader.bytes(length)))
                case .integer:
                    attributes[name] = .integer(Int64(bitPattern: try reader.integer(UInt64.self)))
                case .date:
                    let bits = try reader.integer(UInt64.self)
                    attributes[name] = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
                }
            }
            guard reader.isAtEnd else { throw KeychainError(.decode, "trailing bytes in record") }
            return attributes
        }
    }

    /// The catalog's short names by their four bytes, so decoding a record does not build a
    /// new string per attribute.
    private static let namesByBytes: [UInt32: String] = Dictionary(
        uniqueKeysWithValues: (AttributeCatalog.attributes.map(\.name) + ["accc"]).reduce(into: Set<String>()) { $0.insert($1) }
            .map { name in (name.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, name) })

    /// An attribute name: invalid UTF-8 is refused, not repaired (a repaired name could grow past
    /// the 255 bytes `encode` can write; found by the record-decoder fuzz target).
    private static func knownName(_ bytes: UnsafeRawBufferPointer) throws -> String {
        if bytes.count == 4, let name = namesByBytes[bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }] {
            return name
        }
        guard let name = String(validatingUTF8Bytes: bytes) else {
            throw KeychainError(.decode, "record attribute name is not UTF-8")
        }
        return name
    }

    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to output: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { output.append(contentsOf: $0) }
    }

    /// A bounds-checked cursor over a byte buffer.
    private struct Reader {
        let buffer: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset == buffer.count }

        mutating func bytes(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count >= 0, count <= buffer.count - offset else {
                throw KeychainError(.decode, "record is truncated")
            }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
        }

        mutating func byte() throws -> UInt8 { try bytes(1)[0] }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            let raw = try bytes(MemoryLayout<T>.size)
            return raw.reduce(T.zero) { $0 << 8 | T($1) }
        }
    }
}

extension String {
    /// Decodes UTF-8, returning nil for invalid sequences instead of repairing them.
    init?(validatingUTF8Bytes bytes: UnsafeRawBufferPointer) {
        guard let text = String(bytes: bytes, encoding: .utf8) else { return nil }
        self = text
    }
}
