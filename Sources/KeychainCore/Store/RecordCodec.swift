import Foundation

/// The plaintext layout of an item's encrypted metadata: a version byte, an entry count, then
/// `name, tag, value` entries. Decoding checks every length and throws `errSecDecode` on anything
/// malformed, so a damaged record can never crash the process. `keychaind`'s protocol carries
/// attribute sets in this layout too.
package enum RecordCodec {
    private static let version: UInt8 = 1

    private enum Tag: UInt8 {
        case string = 1
        case data = 2
        case integer = 3
        case date = 4
    }

    /// The entry name the access control's serialized form is stored under.
    private static let accessControlName = AttributeDescriptor.accessControl.name
    /// The entry name the secret takes in the digest's input (Apple's `kSecValueData`).
    private static let secretName = "v_Data"

    /// Encodes attribute values; `accessControl`, when given, is stored as data under `accc` in
    /// place of any `.accessControl` value. Entries are written in short-name order.
    package static func encode(_ attributes: ItemAttributes, accessControl: Data? = nil) -> Data {
        var entries: [(key: String, value: AttributeValue)] = []
        entries.reserveCapacity(attributes.count + 1)
        for attribute in AttributeCatalog.descriptorsByName {
            if let accessControl, attribute == .accessControl {
                entries.append((attribute.name, .data(accessControl)))
            } else if let value = attributes[attribute] {
                entries.append((attribute.name, value))
            }
        }
        return encode(sortedEntries: entries)
    }

    /// The input of the item digest Apple returns as `sha1`: the record as `encode` writes it
    /// without the digest itself, with the access control (or none) under `accc` and the secret,
    /// when there is one, under `v_Data`. Changing it changes every stored digest.
    static func digestInput(_ attributes: ItemAttributes, accessControl: Data?, secret: Data?) -> Data {
        var entries: [(key: String, value: AttributeValue)] = []
        entries.reserveCapacity(attributes.count + 2)
        for (attribute, value) in attributes where attribute != .sha1 && attribute != .accessControl {
            entries.append((attribute.name, value))
        }
        if let accessControl { entries.append((accessControlName, .data(accessControl))) }
        if let secret { entries.append((secretName, .data(secret))) }
        entries.sort { $0.key < $1.key }
        return encode(sortedEntries: entries)
    }

    /// Writes `entries`, already in name order.
    private static func encode(sortedEntries entries: [(key: String, value: AttributeValue)]) -> Data {
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

    /// Decodes what `encode` produced. An entry whose name is no catalog attribute (no version of
    /// the keychain writes one) is checked like any other and left out, or refused with
    /// `errSecDecode` when `rejectingUnknownNames` (a request must not lose a criterion).
    package static func decode<Bytes: ContiguousBytes>(
        _ bytes: Bytes, rejectingUnknownNames: Bool = false
    ) throws -> ItemAttributes {
        try bytes.withUnsafeBytes { buffer in
            var reader = Reader(buffer: buffer)
            guard try reader.byte() == version else { throw KeychainError(.decode, "unknown record version") }
            let count = try reader.integer(UInt32.self)
            var attributes = ItemAttributes()
            for _ in 0..<count {
                let nameLength = Int(try reader.byte())
                let attribute = try knownAttribute(try reader.bytes(nameLength))
                guard let tag = Tag(rawValue: try reader.byte()) else {
                    throw KeychainError(.decode, "unknown value tag in record")
                }
                let value: AttributeValue
                switch tag {
                case .string:
                    let length = Int(try reader.integer(UInt32.self))
                    guard let text = String(validatingUTF8Bytes: try reader.bytes(length)) else {
                        throw KeychainError(.decode, "record text is not UTF-8")
                    }
                    value = .string(text)
                case .data:
                    let length = Int(try reader.integer(UInt32.self))
                    value = .data(Data(try reader.bytes(length)))
                case .integer:
                    value = .integer(Int64(bitPattern: try reader.integer(UInt64.self)))
                case .date:
                    let bits = try reader.integer(UInt64.self)
                    value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
                }
                if let attribute {
                    attributes.updateValue(value, for: attribute)
                } else if rejectingUnknownNames {
                    throw KeychainError(.decode, "record names an attribute this keychain does not know")
                }
            }
            guard reader.isAtEnd else { throw KeychainError(.decode, "trailing bytes in record") }
            return attributes
        }
    }

    /// The value stored for `attribute` in an encoded record, decoded alone; nil when the record
    /// has no such entry. A scan checks a row's criteria with it before decoding the whole record.
    ///
    /// - Throws: `errSecDecode` for a malformed record.
    static func value(of attribute: AttributeDescriptor, in buffer: UnsafeRawBufferPointer) throws -> AttributeValue? {
        var reader = Reader(buffer: buffer)
        guard try reader.byte() == version else { throw KeychainError(.decode, "unknown record version") }
        let count = try reader.integer(UInt32.self)
        var wanted = attribute.name
        return try wanted.withUTF8 { wanted in
            for _ in 0..<count {
                let entryName = try reader.bytes(Int(try reader.byte()))
                let matches = entryName.count == wanted.count
                    && (wanted.isEmpty || memcmp(entryName.baseAddress!, wanted.baseAddress!, wanted.count) == 0)
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

    /// The descriptors by the four bytes of their short names, so decoding a record builds no
    /// string per attribute.
    private static let descriptorsByBytes: [UInt32: AttributeDescriptor] = Dictionary(
        uniqueKeysWithValues: AttributeCatalog.descriptors.map { attribute in
            (attribute.name.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, attribute)
        })

    /// The attribute an entry name names; nil for a valid name of no catalog attribute. Invalid
    /// UTF-8 is refused, not repaired (a repaired name could grow past the 255 bytes `encode` can
    /// write; found by the record-decoder fuzz target).
    private static func knownAttribute(_ bytes: UnsafeRawBufferPointer) throws -> AttributeDescriptor? {
        if bytes.count == 4, let attribute = descriptorsByBytes[bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }] {
            return attribute
        }
        guard String(validatingUTF8Bytes: bytes) != nil else {
            throw KeychainError(.decode, "record attribute name is not UTF-8")
        }
        return nil
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
    ///
    /// ASCII text, which almost every attribute is, is valid UTF-8 by itself: it is recognised
    /// eight bytes at a time and copied without the generic validator's per-scalar work.
    init?(validatingUTF8Bytes bytes: UnsafeRawBufferPointer) {
        if Self.isASCII(bytes) {
            self = String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
            return
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        self = text
    }

    /// Whether every byte is below 0x80.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
