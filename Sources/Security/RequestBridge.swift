import KeychainCore

/// Converts CF/Foundation dictionaries into the engine's typed request values.
enum RequestBridge {
    /// The entries of a SecItem dictionary.
    ///
    /// - Throws: `errSecParam` for a key that is not a string (Apple: only string keys name anything).
    static func dictionary(_ dictionary: CFDictionary) throws -> RequestEntries {
        // Linux Foundation's `allKeys` and `allValues` hand out the stored objects themselves, in
        // the order of the one storage both walk; `enumerateKeysAndObjects`, subscripts and Swift
        // bridging first convert every value to a Swift type (an `NSData` byte by byte), which
        // cost more than the lookup itself. Dictionaries of other classes keep the general path.
        guard type(of: dictionary) === NSDictionary.self || type(of: dictionary) === NSMutableDictionary.self else {
            return try enumerated(dictionary)
        }
        let keys = dictionary.allKeys
        let values = dictionary.allValues
        guard keys.count == values.count else { return try enumerated(dictionary) }
        var entries = RequestEntries()
        entries.reserveCapacity(keys.count)
        for index in keys.indices {
            let key: NSString
            if type(of: keys[index]) == NSString.self {
                key = keys[index] as! NSString
            } else {
                guard let string = keys[index] as? NSString else { throw KeychainError.param("a dictionary key is not a string") }
                key = string
            }
            // Objects of other kinds (Swift values boxed by Foundation) are read bridged.
            entries.append(String(key), storedObject(values[index]) ?? dictionary.object(forKey: key).map { value($0) } ?? .null)
        }
        return entries
    }

    /// The entries of any dictionary, read through Foundation's bridging enumeration.
    private static func enumerated(_ dictionary: CFDictionary) throws -> RequestEntries {
        var entries = RequestEntries()
        entries.reserveCapacity(dictionary.count)
        var nonStringKey = false
        dictionary.enumerateKeysAndObjects { key, value, stop in
            guard let name = key as? String else {
                nonStringKey = true
                stop.pointee = true
                return
            }
            entries.append(name, self.value(value))
        }
        if nonStringKey { throw KeychainError.param("a dictionary key is not a string") }
        return entries
    }

    /// The class of the `NSNumber`s that hold booleans (a private subclass).
    private static let booleanClass: Any.Type = type(of: NSNumber(value: true))

    /// A stored Foundation object of the common kinds (string, number, data, date, null),
    /// classified without bridging; nil for other kinds.
    private static func storedObject(_ object: Any) -> RequestValue? {
        // The usual classes are recognised by identity first: a cast that fails costs more than
        // one that succeeds (the runtime then looks for boxed Swift values and bridges).
        let type = type(of: object)
        if type == NSString.self { return .string(String(object as! NSString)) }
        if type == NSNumber.self || type == booleanClass { return number(object as! NSNumber) }
        if type == NSData.self {
            let data = object as! NSData
            return .data(Data(bytes: data.bytes, count: data.length))
        }
        switch object {
        case let string as NSString: return .string(String(string))
        case let number as NSNumber: return self.number(number)
        case let data as NSData: return .data(Data(bytes: data.bytes, count: data.length))
        case let date as NSDate: return .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate))
        case is NSNull: return .null
        default: return nil
        }
    }

    /// One value, classified by its Foundation type.
    static func value(_ value: Any) -> RequestValue {
        // Data first: bridging it to NSData and back copies byte by byte on Linux Foundation.
        if let data = value as? Data { return .data(data) }
        let object = value as AnyObject
        switch object {
        case let control as SecAccessControl:
            return .accessControl(control.policy)
        case let key as SecKey:
            return .reference(.key(key.key))
        case let certificate as SecCertificate:
            return .reference(.certificate(certificate.certificate))
        case let identity as SecIdentity:
            return .reference(.identity(identity.identity))
        case let number as NSNumber:
            return self.number(number)
        case let string as NSString:
            return .string(String(string))
        case let data as NSData:
            return .data(Data(bytes: data.bytes, count: data.length))
        case let date as NSDate:
            return .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate))
        case is NSNull:
            return .null
        case let array as NSArray:
            return .array(array.map { self.value($0) })
        case let dictionary as NSDictionary:
            var entries: [String: RequestValue] = [:]
            for (key, value) in dictionary {
                guard let name = key as? String else { return .object(typeName: "dictionary with non-string keys") }
                entries[name] = self.value(value)
            }
            return .dictionary(entries)
        default:
            return .object(typeName: String(describing: type(of: object)))
        }
    }

    /// `NSNumber`s are booleans (`kCFBooleanTrue`, Swift `true`), integers or reals.
    private static func number(_ number: NSNumber) -> RequestValue {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "c") where number.int64Value == 0 || number.int64Value == 1:
            return .boolean(number.boolValue)
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            return .real(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            if number.uint64Value > UInt64(Int64.max) { return .real(number.doubleValue) }
            return .integer(Int64(number.uint64Value))
        default:
            return .integer(number.int64Value)
        }
    }
}

/// Converts engine results into the CF objects Apple's API returns.
enum ResultBridge {
    /// The object for `results`: nothing when no return key was set; one object when the limit
    /// is one; otherwise an array. Each item is its single requested part, or a dictionary of
    /// its parts when two or more were requested.
    static func object(_ results: [ItemResult], returns: ReturnOptions, limit: MatchLimit) -> CFTypeRef? {
        if limit == .one {
            return results.first.flatMap { item(for: $0, returns: returns) }
        }
        return results.compactMap { item(for: $0, returns: returns) } as NSArray
    }

    /// One item's result.
    static func item(for result: ItemResult, returns: ReturnOptions) -> CFTypeRef? {
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
            return result.reference.map(object)  // passwords have no reference type (spec D12)
        default:
            var entries = returns.contains(.attributes) ? attributes(result) : DictionaryEntries(capacity: 4)
            if let data = result.data, returns.contains(.data) { entries.append("v_Data", secretObject(data)) }
            if let reference = result.persistentReference { entries.append("v_PersistentRef", reference as NSData) }
            if returns.contains(.reference) {
                entries.append("class", result.itemClass.rawValue as NSString)
                if let reference = result.reference { entries.append("v_Ref", object(reference)) }
            }
            return entries.dictionary
        }
    }

    /// The `SecKey`, `SecCertificate` or `SecIdentity` for an engine reference.
    static func object(_ reference: ItemReference) -> AnyObject {
        switch reference {
        case .key(let key): return SecKey(key)
        case .certificate(let certificate): return SecCertificate(certificate)
        case .identity(let identity): return SecIdentity(identity)
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
        for (name, value) in attributes { entries.append(name, object(value)) }
        if let policy = result.accessControl { entries.append("accc", SecAccessControl(policy: policy)) }
        return entries
    }

    /// An attribute value as Apple returns it: `CFString`, `CFData`, `CFNumber` or `CFDate`.
    static func object(_ value: AttributeValue) -> AnyObject {
        switch value {
        case .string(let text): return text as NSString
        case .data(let data): return data as NSData
        case .integer(let number):
            if let small = Int32(exactly: number) { return NSNumber(value: small) }
            return NSNumber(value: number)
        case .date(let date): return date as NSDate
        }
    }

    /// Keys and values collected for one `NSDictionary`, made in one step.
    struct DictionaryEntries {
        private var keys: [NSObject] = []
        private var values: [AnyObject] = []

        init(capacity: Int) {
            keys.reserveCapacity(capacity)
            values.reserveCapacity(capacity)
        }

        mutating func append(_ key: String, _ value: AnyObject) {
            keys.append(key as NSString)
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
