import Foundation

/// What a search or add returns for one item; each part is present when it was requested.
public struct ItemResult: Sendable {
    /// The item's class.
    public let itemClass: ItemClass
    /// Attribute values (`kSecReturnAttributes`).
    public var attributes: ItemAttributes?
    /// The item's access control, returned with the attributes as `accc`.
    public var accessControl: AccessControlPolicy?
    /// The secret (`kSecReturnData`); nil for an item stored without data.
    public var data: Data?
    /// The persistent reference (`kSecReturnPersistentRef`).
    public var persistentReference: Data?
    /// The key, certificate or identity (`kSecReturnRef`).
    public var reference: ItemReference?

    /// A result for an item of `itemClass` with no part yet.
    public init(itemClass: ItemClass) { self.itemClass = itemClass }
}
