import Foundation
@_spi(Testing) import Security

/// `rekey`: changes the default keychain's passcode again and again until killed, so that kills
/// land in every part of a change (staging the new keybag, sealing the rows again, the commit,
/// moving the keybag into place).
///
/// With `--fill 1` (the first run) it sets passcode `passcode-0` on the new keychain and fills it
/// with `--items` generic passwords spread over every accessibility (`rekey-<n>`, secret
/// `secret-<n>`). It then changes
/// `passcode-<k>` to `passcode-<k+1>` for k = `--from`, `--from` + 1, …, logging `changed <k+1>`
/// after each change returns. After a kill the keychain must open with `passcode-<k>` or
/// `passcode-<k+1>` (the change in flight), and every item must read back.
struct PasscodeChanger {
    let log: OperationLog
    let items: Int
    let from: Int
    let fill: Bool

    init(_ arguments: HelperArguments) throws {
        log = try OperationLog(path: try arguments.string("log"))
        items = try arguments.integer("items")
        from = try arguments.integer("from")
        fill = try arguments.integer("fill", default: 0) != 0
    }

    static func passcode(_ index: Int) -> Data { Data("passcode-\(index)".utf8) }

    /// The accessibility of item `index`.
    static func accessibility(_ index: Int) -> CFString {
        let all = [
            kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleAlways,
            kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            kSecAttrAccessibleAlwaysThisDeviceOnly, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
        ]
        return all[index % all.count]
    }

    func run() throws {
        try check(SecDataProtectionTesting.useFastKeyDerivation(), "fast key derivation")
        if fill {
            try check(SecDataProtectionTesting.setPasscode(Self.passcode(0), old: nil), "first passcode")
            for index in 0..<items {
                let add: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "rekey",
                    kSecAttrAccount as String: "rekey-\(index)", kSecAttrAccessible as String: Self.accessibility(index),
                    kSecValueData as String: Data("secret-\(index)".utf8),
                ]
                try check(SecItemAdd(add as CFDictionary, nil), "add \(index)")
            }
            log.append("filled \(items)")
        }
        var current = from
        while true {
            try check(SecDataProtectionTesting.setPasscode(Self.passcode(current + 1), old: Self.passcode(current)), "change \(current)")
            current += 1
            log.append("changed \(current)")
        }
    }

    private func check(_ status: OSStatus, _ what: String) throws {
        guard status == errSecSuccess else { throw HelperError("\(what): status \(status)") }
    }
}
