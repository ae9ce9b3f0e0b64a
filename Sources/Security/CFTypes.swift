@_exported import Foundation

// Core Foundation types as Foundation classes, so that code written against Apple's `Security`
// framework (`query as CFDictionary`, `var result: CFTypeRef?`, `result as? Data`,
// `Unmanaged<CFError>`) compiles and behaves the same on Linux.

/// Any Core Foundation object (`CFTypeRef`).
public typealias CFTypeRef = AnyObject
/// `CFString`, as `NSString`.
public typealias CFString = NSString
/// `CFDictionary`, as `NSDictionary`.
public typealias CFDictionary = NSDictionary
/// `CFMutableDictionary`, as `NSMutableDictionary`.
public typealias CFMutableDictionary = NSMutableDictionary
/// `CFData`, as `NSData`.
public typealias CFData = NSData
/// `CFMutableData`, as `NSMutableData`.
public typealias CFMutableData = NSMutableData
/// `CFArray`, as `NSArray`.
public typealias CFArray = NSArray
/// `CFNumber`, as `NSNumber`.
public typealias CFNumber = NSNumber
/// `CFBoolean`, as `NSNumber` (booleans are `NSNumber`s on Linux, as toll-free bridged on Apple platforms).
public typealias CFBoolean = NSNumber
/// `CFDate`, as `NSDate`.
public typealias CFDate = NSDate
/// `CFError`, as `NSError`.
public typealias CFError = NSError
/// `CFNull`, as `NSNull`.
public typealias CFNull = NSNull
/// `CFURL`, as `NSURL`.
public typealias CFURL = NSURL
/// `CFAllocator`: allocators are not configurable here; pass `nil` or `kCFAllocatorDefault`.
public typealias CFAllocator = NSObject
/// `CFIndex`.
public typealias CFIndex = Int
/// `CFTypeID`.
public typealias CFTypeID = UInt
/// `OSStatus`: a result code; 0 is success.
public typealias OSStatus = Int32
/// `FourCharCode`: four ASCII bytes packed big-endian into 32 bits.
public typealias FourCharCode = UInt32

// The Core Foundation constants, declared as Apple's SDK imports them into Swift: the headers
// declare them outside any nullability-audited region (`CF_EXPORT const CFBooleanRef
// kCFBooleanTrue;`), so each is an implicitly unwrapped optional. Client code therefore writes
// both `kCFBooleanTrue` and `kCFBooleanTrue!`, and both must compile here as they do there.

/// The default allocator: `nil`, as on Apple platforms (`let kCFAllocatorDefault: CFAllocator!`).
nonisolated(unsafe) public let kCFAllocatorDefault: CFAllocator! = nil
/// The true `CFBoolean` (`let kCFBooleanTrue: CFBoolean!`).
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// The false `CFBoolean` (`let kCFBooleanFalse: CFBoolean!`).
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
/// The null object (`let kCFNull: CFNull!`).
public let kCFNull: CFNull! = NSNull()
/// The error domain of `CFError`s that carry an `OSStatus`
/// (`let kCFErrorDomainOSStatus: CFErrorDomain!`).
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain! = "NSOSStatusErrorDomain"
/// `noErr`: success.
public let noErr: OSStatus = 0
