/// A `kSecAttrAccessible` value: when an item's secret may be read, and whether it may leave this device.
public enum Protection: String, CaseIterable, Sendable {
    /// `kSecAttrAccessibleWhenUnlocked`.
    case whenUnlocked = "ak"
    /// `kSecAttrAccessibleAfterFirstUnlock`.
    case afterFirstUnlock = "ck"
    /// `kSecAttrAccessibleAlways` (deprecated by Apple).
    case always = "dk"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case whenUnlockedThisDeviceOnly = "aku"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecAttrAccessibleAlwaysThisDeviceOnly` (deprecated by Apple).
    case alwaysThisDeviceOnly = "dku"
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`.
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// Whether the value ends in `ThisDeviceOnly`: such items never sync or migrate.
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly,
            .whenPasscodeSetThisDeviceOnly:
            return true
        case .whenUnlocked, .afterFirstUnlock, .always:
            return false
        }
    }
}
