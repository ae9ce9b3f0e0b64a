import Foundation
import KeychainCore

/// A synchronizable item as it travels: its class, the attributes its owner sets (not the dates
/// or digests the keychain maintains, not the synchronizable flag, which is implied, not the
/// token ID, which only a key that never leaves its device has) and its secret (a password, a
/// certificate's DER, a key's external representation). Its encoding is the plaintext of a
/// record; its primary-key digest (the class's composite primary key, from the catalog) says
/// which local item it is.
struct SyncedItem: Equatable {
    /// The classes that sync: every stored class (an identity travels as its certificate and its
    /// private key).
    static let classes: [ItemClass] = ItemClass.stored

    let itemClass: ItemClass
    let attributes: [(AttributeDescriptor, AttributeValue)]
    let secret: Data
    /// Whether the item lives in a token (a key made in the TPM: its data is a blob only that
    /// TPM opens). Such an item never leaves its device.
    let inToken: Bool

    static func == (lhs: SyncedItem, rhs: SyncedItem) -> Bool {
        lhs.itemClass == rhs.itemClass && lhs.secret == rhs.secret && lhs.inToken == rhs.inToken
            && lhs.attributes.count == rhs.attributes.count
            && zip(lhs.attributes, rhs.attributes).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// The item a search result describes (attributes and data returned).
    init(_ result: ItemResult) {
        itemClass = result.itemClass
        var kept: [(AttributeDescriptor, AttributeValue)] = []
        var token = false
        for (attribute, value) in result.attributes ?? [:] where attribute.maintainer == .caller && !Self.neverCarried.contains(attribute) {
            if attribute == .tokenID {
                token = token || value != attribute.emptyValue
            } else {
                kept.append((attribute, value))
            }
        }
        attributes = kept.sorted { $0.0.ordinal < $1.0.ordinal }
        secret = result.data ?? Data()
        inToken = token
    }

    private init(itemClass: ItemClass, attributes: [(AttributeDescriptor, AttributeValue)], secret: Data) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
        inToken = false
    }

    /// Attributes a record never carries: the synchronizable flag (implied) and the access
    /// control (a synchronizable item has none).
    private static let neverCarried: Set<AttributeDescriptor> = [.synchronizable, .accessControl]

    /// The value of `attribute`.
    func value(_ attribute: AttributeDescriptor) -> AttributeValue? {
        attributes.first { $0.0 == attribute }?.1
    }

    /// Whether it may leave this device: a synchronizable class, not in a token, and not
    /// ThisDeviceOnly.
    var maySync: Bool {
        guard Self.classes.contains(itemClass), !inToken else { return false }
        guard let text = value(.accessible)?.stringValue else { return true }
        return Protection(rawValue: text).map { !$0.isThisDeviceOnly } ?? false
    }

    /// SHA-256 over the class and the primary key's values (empty for those not set), which
    /// identifies the local item a record stands for.
    func primaryKeyDigest() throws -> String {
        var key = AssociatedData("primary key")
        key.append(itemClass.rawValue)
        for attribute in AttributeCatalog.primaryKey(of: itemClass) where attribute != .synchronizable {
            key.append(attribute.name)
            key.append((value(attribute) ?? attribute.emptyValue).comparableBytes)
        }
        return SyncCrypto.hex(try SyncCrypto.sha256(key.bytes))
    }

    /// SHA-256 of the encoding: two items with the same digest are the same item.
    func contentDigest() throws -> String {
        SyncCrypto.hex(try SyncCrypto.sha256(encoded()))
    }

    /// The request that adds it (synchronizable).
    func addRequest() -> ItemRequest {
        var request = ItemRequest(itemClass: itemClass)
        for (attribute, value) in attributes { request.attributes[attribute] = value }
        request.synchronizable = .only(true)
        request.secret = secret
        return request
    }

    /// The request that finds exactly the local synchronizable item with its primary key.
    func exactRequest() -> ItemRequest {
        var request = ItemRequest(itemClass: itemClass)
        for attribute in AttributeCatalog.primaryKey(of: itemClass) where attribute != .synchronizable {
            request.attributes[attribute] = value(attribute) ?? attribute.emptyValue
        }
        request.synchronizable = .only(true)
        return request
    }

    /// The changes that make the local item with its primary key equal to it (a carried item has
    /// no token ID to change).
    func changes() -> ItemChanges {
        var changes = ItemChanges()
        for (attribute, value) in attributes { changes.attributes[attribute] = value }
        changes.secret = secret
        return changes
    }

    // MARK: - Encoding

    private static let magic = Data("KSI1".utf8)

    /// `KSI1`, the class's short name, the attribute count, each attribute (short name, kind,
    /// length-prefixed value), the length-prefixed secret; integers big-endian. Written into one
    /// buffer (a first sync encodes every record it applies, for its digest).
    func encoded() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + secret.count + 48 * attributes.count)
        bytes.append(contentsOf: Self.magic)
        Self.appendText(itemClass.rawValue, to: &bytes)
        Self.append(UInt32(attributes.count), to: &bytes)
        for (attribute, value) in attributes {
            Self.appendText(attribute.name, to: &bytes)
            switch value {
            case .string(let text):
                bytes.append(0)
                Self.appendText(text, to: &bytes)
            case .data(let data):
                bytes.append(1)
                Self.append(UInt32(data.count), to: &bytes)
                bytes.append(contentsOf: data)
            case .integer(let number):
                bytes.append(2)
                Self.append(8, to: &bytes)
                withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
            case .date(let date):
                bytes.append(3)
                Self.append(8, to: &bytes)
                withUnsafeBytes(of: date.timeIntervalSinceReferenceDate.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
            }
        }
        Self.append(UInt32(secret.count), to: &bytes)
        bytes.append(contentsOf: secret)
        return Data(bytes)
    }

    /// The item `encoded` produced.
    ///
    /// - Throws: `SyncError.refused` when the bytes are not an item of a synchronizable class.
    static func decode(_ data: Data) throws -> SyncedItem {
        var reader = Reader(data: data)
        guard try reader.take(magic.count) == magic else { throw SyncError(.refused, "a record does not hold an item") }
        guard let itemClass = ItemClass(rawValue: try reader.text()), classes.contains(itemClass) else {
            throw SyncError(.refused, "a record holds an item of a class that does not sync")
        }
        let count = try reader.integer()
        guard count <= 256 else { throw SyncError(.refused, "a record holds too many attributes") }
        var attributes: [(AttributeDescriptor, AttributeValue)] = []
        for _ in 0..<count {
            let attribute = AttributeCatalog.descriptor(named: try reader.text())
            guard attribute != .tokenID else {
                throw SyncError(.refused, "a record holds a token's key, which never leaves its device")
            }
            guard let attribute, attribute.belongs(to: itemClass), attribute.maintainer == .caller, !neverCarried.contains(attribute),
                !attributes.contains(where: { $0.0 == attribute })
            else { throw SyncError(.refused, "a record holds an attribute its class does not have") }
            let kind = try reader.take(1).first!
            let bytes = try reader.bytes()
            let value: AttributeValue
            switch (kind, bytes.count) {
            case (0, _):
                guard let text = String(data: bytes, encoding: .utf8) else { throw SyncError(.refused, "a record holds malformed text") }
                value = .string(text)
            case (1, _): value = .data(bytes)
            case (2, 8): value = .integer(Int64(bigEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }))
            case (3, 8):
                let bits = UInt64(bigEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
                value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
            default: throw SyncError(.refused, "a record holds a malformed value")
            }
            attributes.append((attribute, value))
        }
        let secret = try reader.bytes()
        guard reader.isAtEnd else { throw SyncError(.refused, "a record holds trailing bytes") }
        let item = SyncedItem(itemClass: itemClass, attributes: attributes.sorted { $0.0.ordinal < $1.0.ordinal }, secret: secret)
        guard item.maySync else { throw SyncError(.refused, "a record holds an item that may not leave its device") }
        return item
    }

    private static func append(_ number: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        append(UInt32(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    /// Reads an encoding front to back; running out is `refused`.
    private struct Reader {
        let data: Data
        var offset = 0

        var isAtEnd: Bool { offset == data.count }

        mutating func take(_ count: Int) throws -> Data {
            guard count >= 0, data.count - offset >= count else { throw SyncError(.refused, "a record's item is truncated") }
            defer { offset += count }
            return Data(data[(data.startIndex + offset)..<(data.startIndex + offset + count)])
        }

        mutating func integer() throws -> Int {
            Int(UInt32(bigEndian: try take(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
        }

        mutating func bytes() throws -> Data { try take(try integer()) }

        mutating func text() throws -> String {
            guard let text = String(data: try bytes(), encoding: .utf8) else { throw SyncError(.refused, "a record holds malformed text") }
            return text
        }
    }
}
