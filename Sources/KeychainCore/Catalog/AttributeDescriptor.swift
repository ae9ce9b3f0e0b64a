import Foundation

/// One attribute of the catalog: its short name, kind, the classes that have it, the classes whose
/// primary key it belongs to, and who maintains it.
///
/// A class, since the catalog's entries are shared and never change: every lookup hands out one
/// reference instead of copying (and retaining) its strings and sets.
/// Descriptors are equal when they are the same attribute (the same ordinal).
public final class AttributeDescriptor: Hashable, Sendable {
    /// Who writes an attribute's value.
    public enum Maintainer: Sendable {
        /// The caller sets it on add and update.
        case caller
        /// The keychain sets it (creation and modification dates); a caller's value is ignored.
        case system
        /// The keychain computes it from the other attributes (`sha1`); a caller's value is ignored.
        case computed
    }

    /// The attribute's position in `AttributeCatalog.descriptors`: `ItemAttributes` indexes
    /// its values by it, so no lookup hashes a string.
    public let ordinal: Int
    /// Apple's 4-character short name, the string value of the `kSecAttr…` constant.
    public let name: String
    /// Apple's constant name, for messages and documentation.
    public let constant: String
    /// How values are accepted, stored, compared and returned.
    public let kind: AttributeKind
    /// The classes that have this attribute.
    public let classes: Set<ItemClass>
    /// The classes whose composite primary key includes this attribute.
    public let primaryKeyOf: Set<ItemClass>
    /// Who writes the value.
    public let maintainer: Maintainer
    /// `classes` as bits (`ItemClass.bit`), for membership tests without hashing.
    let classBits: UInt8

    init(
        _ ordinal: Int, _ name: String, _ constant: String, _ kind: AttributeKind, classes: Set<ItemClass>,
        primaryKeyOf: Set<ItemClass> = [], maintainer: Maintainer = .caller
    ) {
        self.ordinal = ordinal
        self.name = name
        self.constant = constant
        self.kind = kind
        self.classes = classes
        self.primaryKeyOf = primaryKeyOf
        self.maintainer = maintainer
        classBits = classes.reduce(0) { $0 | $1.bit }
    }

    /// Whether both name the same attribute.
    public static func == (lhs: AttributeDescriptor, rhs: AttributeDescriptor) -> Bool { lhs.ordinal == rhs.ordinal }

    /// Hashes the ordinal.
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    /// Whether `itemClass` has this attribute (an identity has the attributes of certificates
    /// and keys).
    public func belongs(to itemClass: ItemClass) -> Bool {
        let bits = itemClass == .identity ? ItemClass.certificate.bit | ItemClass.key.bit : itemClass.bit
        return classBits & bits != 0
    }

    /// Whether this attribute is part of `itemClass`'s primary key.
    public func isPrimaryKey(of itemClass: ItemClass) -> Bool { primaryKeyOf.contains(itemClass) }

    /// Whether text values of this attribute compare as Swift strings (canonical equivalence)
    /// rather than as bytes: every kind but blob, data and digest.
    var comparesAsText: Bool {
        switch kind {
        case .blob, .data, .digest: return false
        default: return true
        }
    }

    /// The value an omitted primary-key attribute takes: empty text, empty data, 0, or the
    /// reference date (Apple's E and Z defaults).
    public var emptyValue: AttributeValue {
        switch kind {
        case .blob, .string, .protection: return .string("")
        case .data, .digest, .accessControl: return .data(Data())
        case .number, .synchronizable: return .integer(0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        }
    }
}
