import Foundation

/// A `SecAccessControl`: a protection class plus the constraints Apple's
/// `SecAccessControlCreateFlags` express. Compared by value (protection and flags), as Apple
/// compares access controls.
public struct AccessControlPolicy: Hashable, Sendable {
    /// Apple's `SecAccessControlCreateFlags`, with Apple's bit values.
    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        /// Biometry or the device passcode.
        public static let userPresence = Flags(rawValue: 1 << 0)
        /// Any enrolled biometry.
        public static let biometryAny = Flags(rawValue: 1 << 1)
        /// The biometry enrolled when the item was created.
        public static let biometryCurrentSet = Flags(rawValue: 1 << 3)
        /// The device passcode.
        public static let devicePasscode = Flags(rawValue: 1 << 4)
        /// A paired watch (companion).
        public static let watch = Flags(rawValue: 1 << 5)
        /// Any one constraint suffices.
        public static let or = Flags(rawValue: 1 << 14)
        /// Every constraint is needed.
        public static let and = Flags(rawValue: 1 << 15)
        /// The constraints guard private-key operations rather than reading the secret.
        public static let privateKeyUsage = Flags(rawValue: 1 << 30)
        /// An application-supplied password adds to the item's encryption.
        public static let applicationPassword = Flags(rawValue: 1 << 31)

        static let known: Flags = [
            .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .watch, .or, .and,
            .privateKeyUsage, .applicationPassword,
        ]
    }

    /// The item's accessibility.
    public let protection: Protection
    /// The constraint flags.
    public let flags: Flags
    /// For `.biometryCurrentSet`: the keyed digest of the fingerprints enrolled when the item got
    /// this access control (nil when none were); stored with it, never sent to a client, and
    /// not part of its identity.
    package var biometricBinding: Data?

    public static func == (left: AccessControlPolicy, right: AccessControlPolicy) -> Bool {
        left.protection == right.protection && left.flags == right.flags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags)
    }

    /// Validates a combination as Apple's `SecAccessControlCreateWithFlags` does.
    ///
    /// - Throws: `errSecParam` for unknown bits, both `.or` and `.and`, both biometry flags, or
    ///   `.userPresence` combined with anything but `.applicationPassword` / `.privateKeyUsage`.
    public init(protection: Protection, flags: Flags) throws {
        guard Flags.known.isSuperset(of: flags) else {
            throw KeychainError.param("SecAccessControl: unknown flag bits")
        }
        if flags.contains(.or) && flags.contains(.and) {
            throw KeychainError.param("SecAccessControl: only one logical operation (or/and) is allowed")
        }
        if flags.contains(.biometryAny) && flags.contains(.biometryCurrentSet) {
            throw KeychainError.param("SecAccessControl: biometryAny and biometryCurrentSet are exclusive")
        }
        if flags.contains(.userPresence)
            && !flags.subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty
        {
            throw KeychainError.param("SecAccessControl: userPresence cannot be combined with other constraints")
        }
        self.protection = protection
        self.flags = flags
    }

    /// Whether the access control carries constraints beyond its protection class.
    public var hasConstraints: Bool { !flags.subtracting([.or, .and]).isEmpty }

    /// The constraints that need the user: the flags without the logical operations,
    /// `.privateKeyUsage` and `.applicationPassword` (which is encryption, not a check).
    public var userConstraints: [Flags] { Self.userConstraints(of: flags) }

    /// The constraints among `flags` that need the user.
    public static func userConstraints(of flags: Flags) -> [Flags] {
        [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .watch].filter { flags.contains($0) }
    }

    /// Whether reading the secret needs anything: a user constraint or the application password.
    public var guardsSecret: Bool { !userConstraints.isEmpty || flags.contains(.applicationPassword) }

    /// How many of `userConstraints` must be satisfied: one with `.or`, otherwise all.
    public var requiredCount: Int {
        let count = userConstraints.count
        return flags.contains(.or) ? min(count, 1) : count
    }

    /// The stored form: a version byte (1, or 2 with a biometric binding), the protection
    /// string, the flags, then in version 2 the binding's length (one byte) and bytes.
    var serialized: Data {
        var data = Data([biometricBinding == nil ? 1 : 2, UInt8(protection.rawValue.utf8.count)])
        data.append(contentsOf: protection.rawValue.utf8)
        withUnsafeBytes(of: flags.rawValue.bigEndian) { data.append(contentsOf: $0) }
        if let biometricBinding {
            data.append(UInt8(biometricBinding.count))
            data.append(biometricBinding)
        }
        return data
    }

    /// Reads the stored form; throws `errSecDecode` when it is malformed.
    init(serialized data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 2, bytes[0] == 1 || bytes[0] == 2 else {
            throw KeychainError(.decode, "stored access control is malformed")
        }
        let flagsEnd = 2 + Int(bytes[1]) + 8
        var binding: Data?
        if bytes[0] == 2 {
            guard bytes.count > flagsEnd, bytes.count == flagsEnd + 1 + Int(bytes[flagsEnd]) else {
                throw KeychainError(.decode, "stored access control is malformed")
            }
            binding = Data(bytes[(flagsEnd + 1)...])
        } else {
            guard bytes.count == flagsEnd else { throw KeychainError(.decode, "stored access control is malformed") }
        }
        guard let protection = Protection(rawValue: String(decoding: bytes[2..<(2 + Int(bytes[1]))], as: UTF8.self))
        else { throw KeychainError(.decode, "stored access control is malformed") }
        let raw = bytes[(2 + Int(bytes[1]))..<flagsEnd].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        try self.init(protection: protection, flags: Flags(rawValue: raw))
        biometricBinding = binding
    }
}
