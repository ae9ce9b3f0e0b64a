import Foundation
import KeychainCrypto

/// A decrypted item: its identity, its attributes, and (when read) its secret.
struct ItemRecord: Sendable {
    /// The store's row id.
    var rowID: Int64
    /// The item class.
    var itemClass: ItemClass
    /// The item's stable 16-byte identifier (its persistent reference).
    var uuid: Data
    /// Attribute values, including the accessibility, access group, synchronizable flag,
    /// creation and modification dates and digest; never the access control (below).
    var attributes: ItemAttributes
    /// The item's access control, when it was given one.
    var accessControl: AccessControlPolicy?
    /// The application password the secret is sealed under when this record is written (an item
    /// whose access control has `.applicationPassword`), with the derivation's cost; never stored.
    var sealingPassword: ApplicationPassword?

    /// Whether the item is synchronizable.
    var isSynchronizable: Bool { attributes[.synchronizable]?.integerValue == 1 }

    /// The item's access group.
    var accessGroup: String { attributes[.accessGroup]?.stringValue ?? "" }

    /// The item's accessibility.
    var protection: Protection {
        attributes[.accessible]?.stringValue.flatMap(Protection.init) ?? itemClass.defaultProtection
    }

    /// The persistent reference handed to callers.
    var persistentReference: PersistentReference { PersistentReference(itemClass: itemClass, uuid: uuid) }
}

/// A row of the `items` table as stored: everything but the class, the protection class and the
/// identifiers is sealed.
struct StoredRow {
    var rowID: Int64
    var itemClass: ItemClass
    /// The item's `kSecAttrAccessible` value (`ak`, `cku`, …) in the clear, as Apple stores
    /// `pdmn`, so a locked row is recognised without decrypting it. Empty in version-1 rows.
    var keyClass: String
    var uuid: Data
    var primaryKeyToken: Data
    var metadata: Data
    var secret: Data?
    /// Whether the sealed record is synchronizable: known for rows being written (the store
    /// records that synchronizable items exist), false for rows read back, whose flag is sealed.
    var isSynchronizable: Bool
    /// The row's generation: 1 when added, one more at each update, bound into both sealed
    /// parts; 0 for a row last written before schema 4 (sealed without one).
    var generation: Int64 = 0
    /// Whether the rollback ledger names this generation for the row's UUID: a row put back to
    /// an older version of itself is not current. False until checked (`KeychainStore`), and
    /// only a current row opens.
    var isCurrent = false
    /// The row's search-index tokens, concatenated (`SearchIndexEncoding`): the index entries
    /// that name it, kept on the row so a delete removes them without opening it. Nil for a row
    /// not indexed yet (written before schema 6, whose class was locked since): every search
    /// of its class considers it.
    var searchTokens: Data?

    /// The row's protection class; nil when the column holds no known value.
    var protection: Protection? { Protection(rawValue: keyClass) }
}

/// An application password as sealing uses it: the password and the iteration count of its
/// derivation (PBKDF2-HMAC-SHA256, calibrated like the passcode's).
struct ApplicationPassword: Sendable {
    /// The password.
    let password: SecureBytes
    /// The derivation's iteration count.
    let iterations: Int
}
