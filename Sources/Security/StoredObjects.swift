internal import CoreFoundation

/// The objects a Foundation array holds, read as stored, without converting them to Swift values.
///
/// Linux Foundation's own `NSArray` accessors (`object(at:)`, iteration, `enumerateObjects`)
/// hand out every element converted to a Swift value, and converting a nested array or
/// dictionary converts everything inside it, one stack frame per level, before the caller
/// sees it. The request bridge must look at one level at a time to bound the depth, so it reads
/// arrays through Core Foundation, which returns the stored object itself.
enum StoredObjects {
    /// The elements of `array`, an `NSArray` or `NSMutableArray` itself (for a subclass, Core
    /// Foundation calls the subclass's accessor and records its answer in the array), in order.
    /// A Swift value Foundation keeps boxed comes back as its box; `array.object(at:)` unboxes it.
    static func elements(of array: NSArray) -> [AnyObject] {
        let storage = unsafeBitCast(array, to: CoreFoundation.CFArray.self)
        let count = CFArrayGetCount(storage)
        var elements: [AnyObject] = []
        elements.reserveCapacity(count)
        for index in 0..<count {
            // Foundation arrays never hold a null pointer; one would read as `NSNull`.
            guard let pointer = CFArrayGetValueAtIndex(storage, index) else {
                elements.append(NSNull())
                continue
            }
            elements.append(Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue())
        }
        return elements
    }
}
