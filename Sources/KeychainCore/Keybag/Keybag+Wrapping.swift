import Foundation
import KeychainCrypto

/// Wrapping and unwrapping the keybag's keys.
extension Keybag {
    /// The keys that wrap a keybag's entries: the device's, and (with a passcode) the one derived
    /// from the passcode mixed with the device key.
    struct WrappingKeys {
        let device: SymmetricKey
        let passcode: SymmetricKey?
        /// A keyed fingerprint of the passcode material, for "the same wrong passcode twice".
        let fingerprint: Data?
    }

    /// A new keybag with fresh random keys for every class; the passcode-only class exists only
    /// when `passcode` is given.
    ///
    /// - Returns: the keybag and its unwrapped keys.
    static func create(
        deviceKey: SymmetricKey, passcode: SecureBytes?, iterations: @autoclosure () throws -> Int
    ) throws -> (Keybag, [KeybagClass: SymmetricKey]) {
        var keybag = Keybag(uuid: try SecureRandom.data(count: 16))
        var keys: [KeybagClass: SymmetricKey] = [:]
        for keyClass in KeybagClass.allCases where keyClass != .whenPasscodeSetThisDeviceOnly || passcode != nil {
            keys[keyClass] = try SymmetricKey.random()
        }
        var wrapping = try keybag.wrappingKeys(deviceKey: deviceKey, passcode: nil)
        if let passcode {
            keybag.passcode = PasscodeParameters(salt: try SecureRandom.data(count: 16), iterations: try iterations())
            wrapping = try keybag.wrappingKeys(deviceKey: deviceKey, passcode: passcode)
        }
        try keybag.setEntries(keys, wrapping: wrapping)
        return (keybag, keys)
    }

    /// The wrapping keys for this keybag's parameters; `passcode` is required exactly when the
    /// keybag has one (PBKDF2 runs here, at the calibrated cost).
    func wrappingKeys(deviceKey: SymmetricKey, passcode: SecureBytes?) throws -> WrappingKeys {
        let device = try deviceKey.derive(purpose: "keybag device wrapping v1")
        guard let parameters = self.passcode, let passcode else {
            return WrappingKeys(device: device, passcode: nil, fingerprint: nil)
        }
        let material = try PasscodeKDF.derive(passcode, salt: parameters.salt, iterations: parameters.iterations)
        let mixed = SecureBytes.concatenating([material, deviceKey.bytes])
        let fingerprintKey = try deviceKey.derive(purpose: "passcode fingerprint v1")
        let fingerprint = try material.withUnsafeBytes { try fingerprintKey.authenticationCode(for: uuid + Data($0)) }
        return WrappingKeys(
            device: device, passcode: try SymmetricKey.derive(from: mixed, purpose: "keybag passcode wrapping v1"),
            fingerprint: fingerprint)
    }

    /// Replaces the entries with `keys`, each wrapped as its class requires.
    mutating func setEntries(_ keys: [KeybagClass: SymmetricKey], wrapping: WrappingKeys) throws {
        entries = try KeybagClass.allCases.compactMap { keyClass in
            guard let key = keys[keyClass] else { return nil }
            let kind: Wrapping = keyClass.needsPasscode && wrapping.passcode != nil ? .deviceAndPasscode : .device
            let wrappingKey = kind == .deviceAndPasscode ? wrapping.passcode! : wrapping.device
            let wrapped = try key.bytes.withUnsafeBytes {
                try wrappingKey.seal($0, aad: entryAAD(keyClass, kind))
            }
            return Entry(keyClass: keyClass, wrapping: kind, wrapped: wrapped)
        }
    }

    /// Unwraps the entries of `classes` that exist and that `wrapping` can open.
    ///
    /// - Throws: `errSecAuthFailed` when a passcode-wrapped entry does not open with
    ///   `wrapping.passcode` (a wrong passcode); `errSecInvalidKeychain` when a device-wrapped
    ///   entry does not open (the keybag belongs to another device).
    func unwrap(_ classes: [KeybagClass], wrapping: WrappingKeys) throws -> [KeybagClass: SymmetricKey] {
        var keys: [KeybagClass: SymmetricKey] = [:]
        for keyClass in classes {
            guard let entry = entry(keyClass) else { continue }
            switch entry.wrapping {
            case .device:
                do {
                    keys[keyClass] = try SymmetricKey(wrapping.device.open(entry.wrapped, aad: entryAAD(keyClass, .device)))
                } catch {
                    throw KeychainError(.invalidKeychain, "the keybag does not open with this device's key")
                }
            case .deviceAndPasscode:
                guard let passcodeKey = wrapping.passcode else { continue }
                do {
                    keys[keyClass] = try SymmetricKey(
                        passcodeKey.open(entry.wrapped, aad: entryAAD(keyClass, .deviceAndPasscode)))
                } catch {
                    throw KeychainError(.authFailed, "the passcode is not correct")
                }
            }
        }
        return keys
    }

    /// Associated data binding a wrapped key to this keybag, its class and its wrapping.
    private func entryAAD(_ keyClass: KeybagClass, _ wrapping: Wrapping) -> Data {
        Data("keybag entry v1".utf8) + uuid + Data([keyClass.rawValue, wrapping.rawValue])
    }
}
