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
        encode(attributes, replacing: [])
    }

    /// Encodes `attributes` with the entries of `replacements` in place of theirs (a nil value
    /// leaves the attribute out), without building a changed copy of the dictionary.
    static func encode(_ attributes: [String: AttributeValue], replacing replacements: [(String, AttributeValue?)]) -> Data {
        var entries: [(key: String, value: AttributeValue)] = []
        entries.reserveCapacity(attributes.count + replacements.count)
        for entry in attributes where !replacements.contains(where: { $0.0 == entry.key }) { entries.append(entry) }
        for case let (name, value?) in replacements { entries.append((name, value)) }
        entries.sort { $0.key < $1.key }
        // The exact size first, so the record is written once into its final buffer.
        var size = 1 + 4
        for (name, value) in entries {
            size += 1 + name.utf8.count + 1
            switch value {
            case .string(let text): size += 4 + text.utf8.count
            case .data(let data): size += 4 + data.count
            case .integer, .date: size += 8
            }
        }
        var output = Data(count: size)
        output.withUnsafeMutableBytes { buffer in
            var writer = Writer(buffer: buffer)
            writer.byte(version)
            writer.integer(UInt32(entries.count))
            for (name, value) in entries {
                writer.byte(UInt8(name.utf8.count))
                writer.bytes(name.utf8)
                switch value {
                case .string(let text):
                    writer.byte(Tag.string.rawValue)
                    writer.integer(UInt32(text.utf8.count))
                    writer.bytes(text.utf8)
                case .data(let data):
                    writer.byte(Tag.data.rawValue)
                    writer.integer(UInt32(data.count))
                    writer.bytes(data)
                case .integer(let number):
                    writer.byte(Tag.integer.rawValue)
                    writer.integer(UInt64(bitPattern: number))
                case .date(let date):
                    writer.byte(Tag.date.rawValue)
                    writer.integer(date.timeIntervalSinceReferenceDate.bitPattern)
                }
            }
            precondition(writer.offset == buffer.count, "record size miscounted")
        }
        return output
    }

    /// A cursor writing into a buffer sized for what it writes.
    private struct Writer {
        let buffer: UnsafeMutableRawBufferPointer
        var offset = 0

        mutating func byte(_ value: UInt8) {
            buffer[offset] = value
            offset += 1
        }

        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.bigEndian) { bytes(UnsafeRawBufferPointer($0)) }
        }

        mutating func bytes(_ source: UnsafeRawBufferPointer) {
            guard source.count > 0 else { return }
            (buffer.baseAddress! + offset).copyMemory(from: source.baseAddress!, byteCount: source.count)
            offset += source.count
        }

        mutating func bytes<Bytes: Sequence>(_ source: Bytes) where Bytes.Element == UInt8 {
            if let done: Void = source.withContiguousStorageIfAvailable({ bytes(UnsafeRawBufferPointer($0)) }) {
                return done
            }
            for value in source { byte(value) }
        }
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

    /// The value stored under `name` in an encoded record, decoded alone; nil when the record has
    /// no such entry. A scan checks a row's criteria with it before decoding the whole record.
    ///
    /// - Throws: `errSecDecode` for a malformed record.
    static func value(named name: String, in buffer: UnsafeRawBufferPointer) throws -> AttributeValue? {
        var reader = Reader(buffer: buffer)
        guard try reader.byte() == version else { throw KeychainError(.decode, "unknown record version") }
        let count = try reader.integer(UInt32.self)
        var wanted = name
        return try wanted.withUTF8 { wanted in
            for _ in 0..<count {
                let entryName = try reader.bytes(Int(try reader.byte()))
                let matches = entryName.elementsEqual(UnsafeRawBufferPointer(wanted))
                guard let tag = Tag(rawValue: try reader.byte()) else {
                    throw KeychainError(.decode, "unknown value tag in record")
                }
                switch tag {
                case .string:
                    let bytes = try reader.bytes(Int(try reader.integer(UInt32.self)))
                    guard matches else { continue }
                    guard let text = String(validatingUTF8Bytes: bytes) else {
                        throw KeychainError(.decode, "record text is not UTF-8")
                    }
                    return .string(text)
                case .data:
                    let bytes = try reader.bytes(Int(try reader.integer(UInt32.self)))
                    if matches { return .data(Data(bytes)) }
                case .integer:
                    let number = Int64(bitPattern: try reader.integer(UInt64.self))
                    if matches { return .integer(number) }
                case .date:
                    let bits = try reader.integer(UInt64.self)
                    if matches { return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))) }
                }
            }
            return nil
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
    /// Decodes UTF-8, returning nil for invalid sequences instead of repairing them (the
    /// standard library's validation: no Foundation encoding machinery per string).
    init?(validatingUTF8Bytes bytes: UnsafeRawBufferPointer) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        self = text
    }
}
