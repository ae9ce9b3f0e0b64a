/// The keys of a keybag: one class key per protection class, plus the index key that keys the
/// tokens (always available, so duplicate detection works while the keychain is locked).
///
/// Raw values are the identifiers stored in keybag and backup files; the protection classes use
/// Apple's keyclass numbers (`SecDbKeychainSerializedItemV7.proto`: AK = 6 … AKPU = 12).
enum KeybagClass: UInt8, CaseIterable, Sendable {
    /// The index key: primary-key tokens and access-group names.
    case index = 0
    /// `kSecAttrAccessibleWhenUnlocked` (class A).
    case whenUnlocked = 6
    /// `kSecAttrAccessibleAfterFirstUnlock` (class C).
    case afterFirstUnlock = 7
    /// `kSecAttrAccessibleAlways` (class D).
    case always = 8
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` (class A, device-bound).
    case whenUnlockedThisDeviceOnly = 9
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (class C, device-bound).
    case afterFirstUnlockThisDeviceOnly = 10
    /// `kSecAttrAccessibleAlwaysThisDeviceOnly` (class D, device-bound).
    case alwaysThisDeviceOnly = 11
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` (class A; exists only with a passcode).
    case whenPasscodeSetThisDeviceOnly = 12

    /// The key class of items with `protection`.
    init(_ protection: Protection) {
        switch protection {
        case .whenUnlocked: self = .whenUnlocked
        case .afterFirstUnlock: self = .afterFirstUnlock
        case .always: self = .always
        case .whenUnlockedThisDeviceOnly: self = .whenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: self = .afterFirstUnlockThisDeviceOnly
        case .alwaysThisDeviceOnly: self = .alwaysThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: self = .whenPasscodeSetThisDeviceOnly
        }
    }

    /// The Data Protection class this key belongs to.
    var tier: Tier {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: return .a
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: return .c
        case .always, .alwaysThisDeviceOnly, .index: return .d
        }
    }

    /// Apple's Data Protection classes as they apply to the keychain (there is no class B).
    enum Tier: Sendable {
        /// Available while unlocked; a passcode-derived key wraps it.
        case a
        /// Available from the first unlock until the process ends; a passcode-derived key wraps it.
        case c
        /// Always available; only the device key wraps it.
        case d
    }

    /// Whether a passcode (when one is set) wraps this key.
    var needsPasscode: Bool { tier != .d }

    /// The protection classes, in keybag order.
    static let protectionClasses: [KeybagClass] = allCases.filter { $0 != .index }
}
