// The Core Foundation error functions client code uses to read `CFError`s (which are `NSError`s here).

/// `CFOptionFlags`.
public typealias CFOptionFlags = UInt
/// `CFErrorDomain`.
public typealias CFErrorDomain = CFString

/// The error's domain (`CFErrorGetDomain`).
public func CFErrorGetDomain(_ error: CFError!) -> CFErrorDomain! {
    error.domain as NSString
}

/// The error's code (`CFErrorGetCode`).
public func CFErrorGetCode(_ error: CFError!) -> CFIndex {
    error.code
}

/// The error's user info (`CFErrorCopyUserInfo`).
public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! {
    error.userInfo as NSDictionary
}

/// A description of the error (`CFErrorCopyDescription`).
public func CFErrorCopyDescription(_ error: CFError!) -> CFString! {
    error.localizedDescription as NSString
}

/// The error's failure reason, if it has one (`CFErrorCopyFailureReason`).
public func CFErrorCopyFailureReason(_ error: CFError!) -> CFString! {
    error.localizedFailureReason.map { $0 as NSString }
}
