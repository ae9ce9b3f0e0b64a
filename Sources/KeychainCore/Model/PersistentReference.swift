import Foundation

/// A persistent reference: the item's class and its stable 16-byte identifier (20 bytes, Apple's
/// current format), or the legacy 12-byte form with a row id.
public struct PersistentReference: Hashable, Sendable {
    /// How the reference names its item.
    public enum Locator: Hashable, Sendable {
        /// The item's 16-byte identifier.
        case uuid(Data)
        /// A row id (legacy references).
        case rowID(Int64)
    }

    /// The referenced item's class (`idnt` for identities).
    public let itemClass: ItemClass
    /// The item's identifier.
    public let locator: Locator

    /// A reference to the item with identifier `uuid`.
    public init(itemClass: ItemClass, uuid: Data) {
        self.itemClass = itemClass
        self.locator = .uuid(uuid)
    }

    /// Parses Apple's 20-byte (class + UUID) or 12-byte (class + big-endian row id) form.
    ///
    /// - Throws: `errSecParam` for anything else.
    public init(data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count == 20 || bytes.count == 12,
            let itemClass = ItemClass(rawValue: String(decoding: bytes[0..<4], as: UTF8.self))
        else { throw KeychainError.param("kSecValuePersistentRef is not a persistent reference") }
        self.itemClass = itemClass
        if bytes.count == 20 {
            locator = .uuid(Data(bytes[4..<20]))
        } else {
            locator = .rowID(bytes[4..<12].reduce(Int64(0)) { $0 << 8 | Int64($1) })
        }
    }

    /// The 20-byte (or legacy 12-byte) encoding handed to callers.
    public var data: Data {
        var data = Data(itemClass.rawValue.utf8)
        switch locator {
        case .uuid(let uuid): data.append(uuid)
        case .rowID(let row): withUnsafeBytes(of: row.bigEndian) { data.append(contentsOf: $0) }
        }
        return data
    }
}
