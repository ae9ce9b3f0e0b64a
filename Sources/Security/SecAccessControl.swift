import KeychainCore

/// Apple's `SecAccessControlCreateFlags`, with Apple's bit values.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Biometry (any enrolment) or the device passcode.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Any enrolled biometry; survives enrolment changes.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Deprecated name of `biometryAny`.
    public static let touchIDAny = biometryAny
    /// The biometry enrolled now; invalidated by enrolment changes.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// Deprecated name of `biometryCurrentSet`.
    public static let touchIDCurrentSet = biometryCurrentSet
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// A paired watch.
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// A paired companion device (same bit as `watch`).
    public static let companion = watch
    /// Any one of the constraints suffices.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Every constraint is needed (the default when several are given).
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// The constraints guard private-key operations (signing, key exchange).
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An application password adds to the item's encryption.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// An access control: an accessibility value and the authentication its item needs.
///
/// Compared by value (protection and flags), as Apple compares access controls.
public final class SecAccessControl: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The protection and constraint flags.
    package let policy: AccessControlPolicy

    init(policy: AccessControlPolicy) { self.policy = policy }

    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool { lhs.policy == rhs.policy }
    public func hash(into hasher: inout Hasher) { hasher.combine(policy) }

    public var description: String {
        "<SecAccessControl protection: \(policy.protection.rawValue) flags: 0x\(String(policy.flags.rawValue, radix: 16))>"
    }
}

/// Creates an access control (`SecAccessControlCreateWithFlags`).
///
/// Validates as Apple does: the protection must be a `kSecAttrAccessible…` value; `.or` with
/// `.and`, both biometry flags, or `.userPresence` with any constraint but `.applicationPassword`
/// or `.privateKeyUsage` fail. Storing an item with the result keeps it (`accc`); enforcing its
/// constraints arrives with LocalAuthentication.
///
/// - Returns: the access control, or nil with an `errSecParam` `CFError` in `error`.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    do {
        guard let text = (protection as? NSString).map(String.init), let level = Protection(rawValue: text) else {
            throw KeychainError.param("SecAccessControl: invalid protection")
        }
        let policy = try AccessControlPolicy(
            protection: level, flags: AccessControlPolicy.Flags(rawValue: UInt64(flags.rawValue)))
        return SecAccessControl(policy: policy)
    } catch {
        errorOut?.pointee = Unmanaged.passRetained(StatusMapping.cfError(for: error))
        return nil
    }
}
