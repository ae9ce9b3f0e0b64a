import KeychainCore

/// The entries of a SecItem dictionary, in the order they were read.
///
/// A SecItem dictionary holds a handful of entries, and the parser looks a few of them up by
/// name: a linear search over short string keys costs less than hashing them into a
/// `Dictionary`, which every SecItem call would otherwise build and then walk again.
package struct RequestEntries: Sendable, Sequence {
    private var keys: [String] = []
    private var values: [RequestValue] = []

    /// No entries.
    package init() {}

    /// The entries of `dictionary` (in its order).
    package init(_ dictionary: [String: RequestValue]) {
        keys.reserveCapacity(dictionary.count)
        values.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            keys.append(key)
            values.append(value)
        }
    }

    /// Room for `count` entries.
    package mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// Adds an entry; the caller guarantees `key` is not there yet (a dictionary's keys are unique).
    package mutating func append(_ key: String, _ value: RequestValue) {
        keys.append(key)
        values.append(value)
    }

    /// The entries as a dictionary.
    package var dictionary: [String: RequestValue] {
        Dictionary(zip(keys, values), uniquingKeysWith: { _, last in last })
    }

    /// The number of entries.
    package var count: Int { keys.count }

    /// The entries' names, in order (`value(at:)` reads the value of each without copying the others).
    package var names: [String] { keys }

    /// The value of the entry at `index` in `names`.
    package func value(at index: Int) -> RequestValue { values[index] }

    /// The value under `key`, if any; setting replaces it or adds an entry (nil removes it).
    package subscript(key: String) -> RequestValue? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            let index = keys.firstIndex(of: key)
            switch (index, newValue) {
            case (let index?, let value?): values[index] = value
            case (let index?, nil):
                keys.remove(at: index)
                values.remove(at: index)
            case (nil, let value?): append(key, value)
            case (nil, nil): break
            }
        }
    }

    package func makeIterator() -> Zip2Sequence<[String], [RequestValue]>.Iterator {
        zip(keys, values).makeIterator()
    }
}
