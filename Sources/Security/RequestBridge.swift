internal import CoreFoundation
import KeychainAuthentication
import KeychainCore

/// Converts CF/Foundation dictionaries into the engine's typed request values.
///
/// Containers are read one level at a time from the objects Foundation stores, never through
/// Foundation's bridging to Swift collections (which converts a nested value whole, recursively),
/// and no deeper than `RequestValue.maximumNestingDepth`: a deeper value, or a container that
/// holds itself, is `errSecParam` before anything below the limit is read.
enum RequestBridge {
    /// The entries of a SecItem dictionary (nesting level 1).
    ///
    /// - Throws: `errSecParam` for a key that is not a string (Apple: only string keys name
    ///   anything), or for a value nested deeper than `RequestValue.maximumNestingDepth`.
    static func dictionary(_ dictionary: CFDictionary) throws -> RequestEntries {
        guard let entries = try entries(of: dictionary, level: 1) else {
            throw KeychainError.param("a dictionary key is not a string")
        }
        return entries
    }

    /// The entries of `dictionary` (at nesting `level`), their values converted; nil, having
    /// stopped, at the first key that is not a string.
    ///
    /// - Throws: `errSecParam` when `level` or a value inside is past the nesting limit.
    private static func entries(of dictionary: NSDictionary, level: Int) throws -> RequestEntries? {
        try checkLevel(level)
        var entries = RequestEntries()
        // A dictionary of Foundation's own classes is read through Core Foundation, which hands
        // out the stored objects themselves, keys and values in the order of the one storage
        // (Linux Foundation's subscripts, enumeration and Swift bridging first convert every
        // value to a Swift type: an `NSData` byte by byte, a nested container whole; `allKeys`
        // and `allValues` box each object in an `Any` array). Dictionaries of other classes are
        // read through their primitive accessors, which their subclass defines (Core Foundation
        // would call them too, and write what they return into the dictionary).
        if type(of: dictionary) === NSDictionary.self || type(of: dictionary) === NSMutableDictionary.self {
            let count = dictionary.count
            guard count > 0 else { return entries }
            entries.reserveCapacity(count)
            let storage = unsafeBitCast(dictionary, to: CoreFoundation.CFDictionary.self)
            let complete = try withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: 2 * count) { buffer in
                let keys = buffer.baseAddress!
                let values = keys + count
                CFDictionaryGetKeysAndValues(storage, keys, values)
                // The objects stay the dictionary's, which the caller holds for the whole call.
                for index in 0..<count {
                    guard let key = keys[index], let stored = values[index] else { return false }
                    guard let name = name(Unmanaged<AnyObject>.fromOpaque(key).takeUnretainedValue()) else { return false }
                    let value = try self.value(stored: Unmanaged<AnyObject>.fromOpaque(stored).takeUnretainedValue(), level: level + 1) {
                        dictionary.object(forKey: name as NSString)
                    }
                    entries.append(name, value)
                }
                return true
            }
            return complete ? entries : nil
        }
        entries.reserveCapacity(dictionary.count)
        let enumerator = dictionary.keyEnumerator()
        while let key = enumerator.nextObject() {
            guard let name = name(key) else { return nil }
            guard let object = dictionary.object(forKey: name as NSString) else { continue }
            entries.append(name, try value(object, level: level + 1))
        }
        return entries
    }

    /// A stored dictionary key as a string; nil for a key of another type.
    private static func name(_ key: AnyObject) -> String? {
        if type(of: key) == NSString.self { return String(unsafeDowncast(key, to: NSString.self)) }
        return name(key as Any)
    }

    /// A dictionary key as a string; nil for a key of another type.
    private static func name(_ key: Any) -> String? {
        if type(of: key) == NSString.self { return String(key as! NSString) }
        return (key as? NSString).map(String.init) ?? key as? String
    }

    /// The elements of `array` (at nesting `level`), converted.
    private static func elements(of array: NSArray, level: Int) throws -> [RequestValue] {
        try checkLevel(level)
        var values: [RequestValue] = []
        values.reserveCapacity(array.count)
        // Arrays of other classes are read through their primitive accessor, which their
        // subclass defines (Core Foundation would call it too, and keep what it returns).
        guard type(of: array) === NSArray.self || type(of: array) === NSMutableArray.self else {
            for index in 0..<array.count { values.append(try value(array.object(at: index), level: level + 1)) }
            return values
        }
        for (index, object) in StoredObjects.elements(of: array).enumerated() {
            values.append(try value(stored: object, level: level + 1) { array.object(at: index) })
        }
        return values
    }

    /// A dictionary nested in a request (at nesting `level`); `.object` when a key is not a string.
    private static func nested(_ dictionary: NSDictionary, level: Int) throws -> RequestValue {
        guard let entries = try entries(of: dictionary, level: level) else {
            return .object(typeName: "dictionary with non-string keys")
        }
        return .dictionary(entries.dictionary)
    }

    /// - Throws: `errSecParam` when a container at `level` would be past the nesting limit.
    private static func checkLevel(_ level: Int) throws {
        guard level <= RequestValue.maximumNestingDepth else {
            throw KeychainError.param("a value is nested more than \(RequestValue.maximumNestingDepth) levels deep")
        }
    }

    /// The class of the `NSNumber`s that hold booleans (a private subclass).
    private static let booleanClass: Any.Type = type(of: NSNumber(value: true))

    /// A value as its container stores it, at nesting `level` if it is a container itself.
    /// `bridged` reads the same value through Foundation, for Swift values it keeps boxed
    /// (`SecKey`, `SecAccessControl`, …); it is called only for objects of other classes than
    /// the Foundation ones read here, which hold no nested containers to convert.
    private static func value(stored object: AnyObject, level: Int, bridged: () -> Any?) throws -> RequestValue {
        if let scalar = scalar(object) { return scalar }
        if let array = object as? NSArray { return .array(try elements(of: array, level: level)) }
        if let dictionary = object as? NSDictionary { return try nested(dictionary, level: level) }
        guard let value = bridged() else { return .null }
        return try self.value(value, level: level)
    }

    /// A Foundation object of the common kinds (string, number, data, date, null), classified
    /// without bridging; nil for other kinds.
    private static func scalar(_ object: AnyObject) -> RequestValue? {
        // The usual classes are recognised by identity first: a cast that fails costs more than
        // one that succeeds (the runtime then looks for boxed Swift values and bridges).
        let objectType: AnyObject.Type = type(of: object)
        if objectType == NSString.self { return .string(String(unsafeDowncast(object, to: NSString.self))) }
        if objectType == NSNumber.self || objectType == booleanClass { return number(unsafeDowncast(object, to: NSNumber.self)) }
        if objectType == NSData.self {
            let data = unsafeDowncast(object, to: NSData.self)
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

    /// A value handed out by Foundation (possibly a Swift value), at nesting `level` if it is a
    /// container.
    private static func value(_ value: Any, level: Int) throws -> RequestValue {
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
        case let context as any KeychainAuthenticating:
            return .authenticationContext(context)
        case let array as NSArray:
            return .array(try elements(of: array, level: level))
        case let dictionary as NSDictionary:
            return try nested(dictionary, level: level)
        default:
            return scalar(object) ?? .object(typeName: String(describing: type(of: object)))
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
