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

    /// Apple's constant name (`kSecAttrAccessibleWhenUnlocked`), for messages and the command line.
    public var constantName: String {
        switch self {
        case .whenUnlocked: return "kSecAttrAccessibleWhenUnlocked"
        case .afterFirstUnlock: return "kSecAttrAccessibleAfterFirstUnlock"
        case .always: return "kSecAttrAccessibleAlways"
        case .whenUnlockedThisDeviceOnly: return "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
        case .afterFirstUnlockThisDeviceOnly: return "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
        case .alwaysThisDeviceOnly: return "kSecAttrAccessibleAlwaysThisDeviceOnly"
        case .whenPasscodeSetThisDeviceOnly: return "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"
        }
    }

    /// The value a name denotes: the stored code (`ak`, `cku`) or the constant's name, with or
    /// without its `kSecAttrAccessible` prefix (`WhenUnlocked`), in any case.
    public static func named(_ name: String) -> Protection? {
        let wanted = name.lowercased()
        return allCases.first { protection in
            let constant = protection.constantName.lowercased()
            return wanted == protection.rawValue || wanted == constant
                || wanted == String(constant.dropFirst("kSecAttrAccessible".count))
        }
    }
}
