import Foundation

/// Assembles every item result the engine returns, so that an add and a search give an item
/// the same shape (Apple builds both from one function, `SecDbItemCopyResult`).
///
/// Each part is present only when `returns` asks for it:
/// - attributes: the item's stored attributes, the result-only ones (`tombstone` 0 and an empty
///   `multiUser`), and its access control: the one it was given, else the one its accessibility
///   implies;
/// - data: the secret the caller read, absent for an item stored without data;
/// - the persistent reference;
/// - the object reference, for classes that have an object type.
struct ItemResultBuilder {
    /// The parts asked for.
    let returns: ReturnOptions

    /// The result for one item.
    ///
    /// - Parameters:
    ///   - itemClass: the class the result reports (`.identity` for a certificate and key pair).
    ///   - record: the item whose attributes and access control are returned; nil only when
    ///     attributes are not asked for.
    ///   - overlay: an item whose attributes are laid over `record`'s: an identity's certificate
    ///     over its private key (the key gives the access control).
    ///   - data: the secret, when it is asked for and the item has one.
    ///   - persistentReference: the item's persistent reference.
    ///   - leavingOutItemsWithoutObject: whether an item whose object cannot be built (its data
    ///     is not a key or certificate) is left out, as a search leaves out what it cannot turn
    ///     into an object, rather than returned without the object.
    ///   - reference: builds the object, given `data` (nil when data was not asked for); called
    ///     only when the object is asked for and the class has an object type.
    /// - Returns: the result, or nil when the item is left out.
    func result(
        itemClass: ItemClass, attributesOf record: ItemRecord?, overlaidWith overlay: ItemRecord? = nil, data: Data?,
        persistentReference: @autoclosure () -> PersistentReference, leavingOutItemsWithoutObject: Bool,
        reference: (_ data: Data?) throws -> ItemReference?
    ) rethrows -> ItemResult? {
        var result = ItemResult(itemClass: itemClass)
        if returns.contains(.attributes), let record {
            var attributes = record.attributes
            attributes[.tombstone] = .integer(0)
            attributes[.multiUser] = .data(Data())
            if let overlay { attributes.merge(overlay.attributes) }
            result.attributes = attributes
            result.accessControl = Self.accessControl(of: record)
        }
        if returns.contains(.data) { result.data = data }
        if returns.contains(.persistentReference) { result.persistentReference = persistentReference().data }
        if returns.contains(.reference) && itemClass.hasReferenceType {
            result.reference = try reference(returns.contains(.data) ? data : nil)
            if result.reference == nil && leavingOutItemsWithoutObject { return nil }
        }
        return result
    }

    /// The access control a result reports for `record`: the one it was given, else the one its
    /// accessibility implies.
    static func accessControl(of record: ItemRecord) -> AccessControlPolicy? {
        record.accessControl ?? (try? AccessControlPolicy(protection: record.protection, flags: []))
    }
}
