import KeychainCore

/// Converts engine results into the CF objects Apple's API returns.
enum ResultBridge {
    /// The object for `results`: nothing when no return key was set; one object when the limit
    /// is one; otherwise an array. Each item is its single requested part, or a dictionary of
    /// its parts when two or more were requested.
    /// `holder` is where keys the keychain holds are used.
    static func object(_ results: [ItemResult], returns: ReturnOptions, limit: MatchLimit, holder: KeyHolder? = nil) -> CFTypeRef? {
        if limit == .one {
            return results.first.flatMap { item(for: $0, returns: returns, holder: holder) }
        }
        return results.compactMap { item(for: $0, returns: returns, holder: holder) } as NSArray
    }

    /// One item's result.
    static func item(for result: ItemResult, returns: ReturnOptions, holder: KeyHolder? = nil) -> CFTypeRef? {
        switch returns {
        case []:
            return nil
        case .data:
            return result.data.map(secretObject)
        case .persistentReference:
            return result.persistentReference.map { NSData(data: $0) }
        case .attributes:
            return attributes(result).dictionary
        case .reference:
            return result.reference.map { object($0, holder: holder) }  // passwords have no reference type: no object
        default:
            var entries = returns.contains(.attributes) ? attributes(result) : DictionaryEntries(capacity: 4)
            if let data = result.data, returns.contains(.data) { entries.append("v_Data", secretObject(data)) }
            if let reference = result.persistentReference { entries.append("v_PersistentRef", reference as NSData) }
            if returns.contains(.reference) {
                entries.append("class", result.itemClass.rawValue as NSString)
                if let reference = result.reference { entries.append("v_Ref", object(reference, holder: holder)) }
            }
            return entries.dictionary
        }
    }

    /// The `SecKey`, `SecCertificate` or `SecIdentity` for an engine reference; a private key the
    /// keychain holds is used through `holder`.
    static func object(_ reference: ItemReference, holder: KeyHolder? = nil) -> AnyObject {
        switch reference {
        case .key(let key): return SecKey(key, holder: holder)
        case .certificate(let certificate): return SecCertificate(certificate)
        case .identity(let identity): return SecIdentity(identity, holder: holder)
        }
    }

    /// A secret as the `CFData` handed to the caller: a copy zeroed when the caller releases it.
    static func secretObject(_ secret: Data) -> NSData {
        secret.withUnsafeBytes { bytes in
            let copy = ZeroingBuffer.copy(bytes)
            return NSData(bytesNoCopy: copy.pointer, length: copy.count, deallocator: ZeroingBuffer.release)
        }
    }

    /// The attribute dictionary's entries with Apple's short keys and value types, as Foundation
    /// objects (bridging a Swift dictionary of `Any` would convert every entry again).
    static func attributes(_ result: ItemResult) -> DictionaryEntries {
        let attributes = result.attributes ?? [:]
        var entries = DictionaryEntries(capacity: attributes.count + 4)
        for (attribute, value) in attributes { entries.append(key: attributeKeys[attribute.ordinal], object(value)) }
        if let policy = result.accessControl {
            entries.append(key: attributeKeys[AttributeDescriptor.accessControl.ordinal], SecAccessControl(policy: policy))
        }
        return entries
    }

    /// Each attribute's key as results carry it (its short name), made once and shared by every
    /// result, by descriptor ordinal.
    nonisolated(unsafe) static let attributeKeys: [NSString] = AttributeCatalog.descriptors.map { $0.name as NSString }

    /// An attribute value as Apple returns it: `CFString`, `CFData`, `CFNumber` or `CFDate`.
    /// The values every result carries (`tomb` 0, an empty `musr`) are immutable objects made
    /// once and shared, as Core Foundation shares its constant numbers.
    static func object(_ value: AttributeValue) -> AnyObject {
        switch value {
        case .string(let text): return text as NSString
        case .data(let data): return data.isEmpty ? emptyData : data as NSData
        case .integer(0): return zero
        case .integer(let number):
            if let small = Int32(exactly: number) { return NSNumber(value: small) }
            return NSNumber(value: number)
        case .date(let date): return date as NSDate
        }
    }

    /// The number 0 of every result that carries one (an `Int32`, as other small integers).
    nonisolated(unsafe) private static let zero = NSNumber(value: Int32(0))
    /// The empty data of every result that carries one.
    nonisolated(unsafe) private static let emptyData = NSData()

    /// Keys and values collected for one `NSDictionary`, made in one step.
    struct DictionaryEntries {
        private var keys: [NSObject] = []
        private var values: [AnyObject] = []

        init(capacity: Int) {
            keys.reserveCapacity(capacity)
            values.reserveCapacity(capacity)
        }

        mutating func append(_ key: String, _ value: AnyObject) {
            append(key: key as NSString, value)
        }

        mutating func append(key: NSString, _ value: AnyObject) {
            keys.append(key)
            values.append(value)
        }

        /// The dictionary (keys are distinct: each is appended once).
        var dictionary: NSDictionary {
            values.withUnsafeBufferPointer { objects in
                keys.withUnsafeBufferPointer { keys in
                    NSDictionary(objects: objects.baseAddress, forKeys: keys.baseAddress, count: keys.count)
                }
            }
        }
    }
}
