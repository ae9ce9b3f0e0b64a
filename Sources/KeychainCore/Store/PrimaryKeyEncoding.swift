import Foundation

/// The bytes a primary-key token authenticates: the class, then each primary-key attribute of
/// the class in catalog order as `0 ‖ name ‖ length (u32, big-endian) ‖ canonical value bytes`.
///
/// The access group and the synchronizable flag come last in every class's key, so a search that
/// leaves them open encodes the rest once and appends each candidate group and flag.
struct PrimaryKeyEncoding {
    /// The class and the attributes before the access group.
    private(set) var prefix: [UInt8]

    /// Encodes `itemClass`'s primary key from `attributes` up to (not including) the access group;
    /// omitted members take their empty values, except an omitted token ID, which adds nothing (so
    /// a software key's token is the same as before the token ID joined the key's primary key).
    init(itemClass: ItemClass, attributes: ItemAttributes) {
        prefix = []
        prefix.reserveCapacity(128)
        prefix.append(contentsOf: [UInt8(ascii: "p"), UInt8(ascii: "k"), 0])
        Self.appendText(itemClass.rawValue, to: &prefix)
        for attribute in Self.leadingMembers(of: itemClass) {
            if attribute == .tokenID && attributes[attribute] == nil { continue }
            Self.append(attribute, value: attributes[attribute] ?? attribute.emptyValue, to: &prefix)
        }
    }

    /// The complete message for one access group and synchronizable flag.
    func message(accessGroup: String, synchronizable: Bool) -> [UInt8] {
        var bytes = prefix
        Self.append(.accessGroup, value: .string(accessGroup), to: &bytes)
        Self.append(.synchronizable, value: .integer(synchronizable ? 1 : 0), to: &bytes)
        return bytes
    }


    /// Each class's primary-key members before the access group. The catalog declares the
    /// access group and synchronizable flag last; this is checked once here.
    private static let leading: [[AttributeDescriptor]] = ItemClass.table { itemClass in
        let key = AttributeCatalog.primaryKey(of: itemClass)
        if itemClass.isStored {
            precondition(
                key.suffix(2) == [.accessGroup, .synchronizable], "the access group and synchronizable flag must end every primary key")
        }
        return Array(key.dropLast(itemClass.isStored ? 2 : 0))
    }

    /// `itemClass`'s primary-key members before the access group (a keyed lookup names them all).
    static func leadingMembers(of itemClass: ItemClass) -> [AttributeDescriptor] {
        leading[itemClass.ordinal]
    }

    /// Appends `text`'s UTF-8 bytes in one copy (appending a `String.UTF8View` goes byte by byte).
    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// Appends one member: blob and data kinds by their type-agnostic bytes (Apple compares those
    /// by bytes), other kinds with a type tag. Two values encode alike exactly when the
    /// keychain's matching calls them equal (case-sensitive), so a token of the encoding stands
    /// for the value in lookups.
    static func append(_ attribute: AttributeDescriptor, value: AttributeValue, to bytes: inout [UInt8]) {
        bytes.append(0)
        appendText(attribute.name, to: &bytes)
        let lengthOffset = bytes.count
        for _ in 0..<4 { bytes.append(0) }
        let start = bytes.count
        switch (attribute.kind, value) {
        case (.blob, _), (.data, _), (.digest, _):
            appendComparable(value, to: &bytes)
        case (_, .integer(let number)):
            bytes.append(UInt8(ascii: "i"))
            withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
        case (_, .string(let text)):
            bytes.append(UInt8(ascii: "s"))
            appendText(text, to: &bytes)
        case (_, .data(let data)):
            bytes.append(UInt8(ascii: "d"))
            data.withUnsafeBytes { bytes.append(contentsOf: $0) }
        case (_, .date):
            bytes.append(UInt8(ascii: "t"))
            appendComparable(value, to: &bytes)
        }
        let length = UInt32(bytes.count - start).bigEndian
        withUnsafeBytes(of: length) { bytes.replaceSubrange(lengthOffset..<start, with: $0) }
    }

    /// `AttributeValue.comparableBytes`, written in place.
    private static func appendComparable(_ value: AttributeValue, to bytes: inout [UInt8]) {
        switch value {
        case .string(let text): appendText(text, to: &bytes)
        case .data(let data): data.withUnsafeBytes { bytes.append(contentsOf: $0) }
        case .integer, .date: bytes.append(contentsOf: value.comparableBytes)
        }
    }
}

extension ItemSealer {
    /// The token of the primary key `encoding` holds, with `accessGroup` and `synchronizable`.
    func primaryKeyToken(_ encoding: PrimaryKeyEncoding, accessGroup: String, synchronizable: Bool) throws -> Data {
        try keyRing.index.tokens.authenticationCode(for: encoding.message(accessGroup: accessGroup, synchronizable: synchronizable))
    }
}
