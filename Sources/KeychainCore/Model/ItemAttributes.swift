/// An item's attribute values keyed by catalog descriptor (`.account`, `.accessGroup`, …).
///
/// Values are held in ordinal order behind a 64-bit presence mask: a lookup is a mask test and a
/// population count, never a string hash, and iteration follows the catalog's order
/// (`AttributeCatalog.descriptors`), so it is the same on every run. Two values are equal when
/// they hold the same attributes with equal values.
public struct ItemAttributes: Hashable, Sendable {
    /// Bit `ordinal` is set when the attribute with that ordinal has a value.
    private(set) var mask: UInt64 = 0
    /// The values of the set bits, lowest ordinal first.
    private var values: [AttributeValue] = []

    /// Creates an empty set of attributes.
    public init() {}

    /// The slot in `values` of the attribute with `ordinal`, present or not.
    @inline(__always)
    private func slot(_ ordinal: Int) -> Int { (mask & ((1 &<< UInt64(ordinal)) &- 1)).nonzeroBitCount }

    /// The value of `attribute`; setting nil removes it.
    public subscript(_ attribute: AttributeDescriptor) -> AttributeValue? {
        get {
            let bit: UInt64 = 1 &<< UInt64(attribute.ordinal)
            return mask & bit == 0 ? nil : values[slot(attribute.ordinal)]
        }
        set {
            if let newValue { updateValue(newValue, for: attribute) } else { removeValue(forKey: attribute) }
        }
    }

    /// Sets `attribute` to `value`, returning the value it replaces.
    @discardableResult
    public mutating func updateValue(_ value: AttributeValue, for attribute: AttributeDescriptor) -> AttributeValue? {
        let bit: UInt64 = 1 &<< UInt64(attribute.ordinal)
        let index = slot(attribute.ordinal)
        if mask & bit != 0 {
            let old = values[index]
            values[index] = value
            return old
        }
        if values.isEmpty { values.reserveCapacity(8) }
        // Records list their attributes in catalog order, so decoding appends.
        if index == values.count { values.append(value) } else { values.insert(value, at: index) }
        mask |= bit
        return nil
    }

    /// Removes `attribute`, returning its value if it had one.
    @discardableResult
    public mutating func removeValue(forKey attribute: AttributeDescriptor) -> AttributeValue? {
        let bit: UInt64 = 1 &<< UInt64(attribute.ordinal)
        guard mask & bit != 0 else { return nil }
        mask &= ~bit
        return values.remove(at: slot(attribute.ordinal))
    }

    /// Whether `attribute` has a value.
    public func contains(_ attribute: AttributeDescriptor) -> Bool {
        mask & (1 &<< UInt64(attribute.ordinal)) != 0
    }

    /// How many attributes have a value.
    public var count: Int { values.count }

    /// Whether no attribute has a value.
    public var isEmpty: Bool { mask == 0 }

    /// The attributes that have a value, in catalog order.
    public var keys: [AttributeDescriptor] { map(\.key) }

    /// Whether every attribute with a value is one of `attributes`.
    public func isSubset(of attributes: [AttributeDescriptor]) -> Bool {
        mask & ~attributes.reduce(UInt64(0)) { $0 | 1 &<< UInt64($1.ordinal) } == 0
    }

    /// Sets every attribute of `other` here, replacing values this holds.
    public mutating func merge(_ other: ItemAttributes) {
        for (attribute, value) in other { self[attribute] = value }
    }

    /// These attributes with every attribute of `other` set over them.
    public func merging(_ other: ItemAttributes) -> ItemAttributes {
        var merged = self
        merged.merge(other)
        return merged
    }

    /// The attributes for which `isIncluded` holds.
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> ItemAttributes {
        var kept = ItemAttributes()
        for element in self where try isIncluded(element) { kept.updateValue(element.value, for: element.key) }
        return kept
    }
}

extension ItemAttributes: Sequence {
    /// An attribute and its value.
    public typealias Element = (key: AttributeDescriptor, value: AttributeValue)

    /// Walks the set bits of the mask from the lowest ordinal up.
    public struct Iterator: IteratorProtocol {
        fileprivate var remaining: UInt64
        fileprivate let values: [AttributeValue]
        fileprivate var index = 0

        /// The next attribute and value in catalog order.
        public mutating func next() -> Element? {
            guard remaining != 0 else { return nil }
            let ordinal = remaining.trailingZeroBitCount
            remaining &= remaining &- 1
            defer { index += 1 }
            return (AttributeCatalog.descriptors[ordinal], values[index])
        }
    }

    /// Iterates the attributes in catalog order.
    public func makeIterator() -> Iterator { Iterator(remaining: mask, values: values) }

    /// The number of attributes with a value.
    public var underestimatedCount: Int { values.count }
}

extension ItemAttributes: ExpressibleByDictionaryLiteral {
    /// Creates attributes from a literal keyed by descriptors, `[.service: .string("x")]`; a
    /// repeated key keeps its last value.
    public init(dictionaryLiteral elements: (AttributeDescriptor, AttributeValue)...) {
        for (attribute, value) in elements { updateValue(value, for: attribute) }
    }
}
