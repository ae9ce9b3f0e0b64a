import Foundation

/// An item sealed for insertion: its record and the row that stores it. The store seals it
/// (`KeychainStore.seal(newItem:secret:)`) before the write transaction begins, so the costly
/// encryption never holds the write lock; the transaction inserts it (`Transaction.insert`).
struct SealedItem {
    /// The item as the caller sees it: its attributes, UUID and (once inserted) row id.
    var record: ItemRecord
    /// The sealed row: tokens, sealed attributes and secret, bound to the record's identity.
    let row: StoredRow
}
