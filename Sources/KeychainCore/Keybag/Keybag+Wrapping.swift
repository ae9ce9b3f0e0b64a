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

    /// What a passcode yields before the TPM is asked: the PBKDF2 output mixed with the device
    /// key (every passcode key is derived from it) and the fingerprint of the passcode.
    struct PasscodeMaterial {
        let mixed: SecureBytes
        /// A keyed fingerprint of the passcode material, for "the same wrong passcode twice".
        let fingerprint: Data

        /// The authorization value of the keybag's passcode gate: a derivation of its own, apart
        /// from the wrapping key's.
        func gateAuthorization() throws -> SymmetricKey {
            try SymmetricKey.derive(from: mixed, purpose: "keybag passcode TPM authorization v1")
        }
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
        let wrapping = try keybag.setPasscode(passcode, iterations: iterations(), deviceKey: deviceKey)
        try keybag.setEntries(keys, wrapping: wrapping)
        return (keybag, keys)
    }

    /// Gives the keybag `passcode` (nil: none) with a new salt and `iterations`, and a new TPM
    /// passcode gate when a TPM answers (`PasscodeGate`); returns the keys to wrap its entries
    /// with (`setEntries`).
    mutating func setPasscode(
        _ passcode: SecureBytes?, iterations: @autoclosure () throws -> Int, deviceKey: SymmetricKey
    ) throws -> WrappingKeys {
        passcodeGate = nil
        guard let passcode else {
            self.passcode = nil
            return try wrappingKeys(deviceKey: deviceKey, passcode: nil)
        }
        self.passcode = PasscodeParameters(salt: try SecureRandom.data(count: 16), iterations: try iterations())
        guard let material = try passcodeMaterial(deviceKey: deviceKey, passcode: passcode) else {
            throw KeychainError(.internal, "the passcode yields no key material")
        }
        let secret = try SecureBytes.random(count: SymmetricKey.byteCount)
        passcodeGate = PasscodeGate.create(secret: secret, authValue: try material.gateAuthorization())
        return try wrappingKeys(deviceKey: deviceKey, material: material, gateSecret: passcodeGate == nil ? nil : secret)
    }

    /// The wrapping keys for this keybag's parameters; `passcode` is required exactly when the
    /// keybag has one (PBKDF2 runs here, at the calibrated cost, and the TPM checks the passcode
    /// when the keybag has a gate).
    func wrappingKeys(deviceKey: SymmetricKey, passcode: SecureBytes?) throws -> WrappingKeys {
        try wrappingKeys(deviceKey: deviceKey, material: passcodeMaterial(deviceKey: deviceKey, passcode: passcode))
    }

    /// The passcode's material for this keybag's parameters (PBKDF2 runs here); nil when the
    /// keybag or the caller has no passcode.
    func passcodeMaterial(deviceKey: SymmetricKey, passcode: SecureBytes?) throws -> PasscodeMaterial? {
        guard let parameters = self.passcode, let passcode else { return nil }
        let material = try PasscodeKDF.derive(passcode, salt: parameters.salt, iterations: parameters.iterations)
        let fingerprintKey = try deviceKey.derive(purpose: "passcode fingerprint v1")
        let fingerprint = try material.withUnsafeBytes { try fingerprintKey.authenticationCode(for: uuid + Data($0)) }
        return PasscodeMaterial(mixed: SecureBytes.concatenating([material, deviceKey.bytes]), fingerprint: fingerprint)
    }

    /// The wrapping keys from the passcode's `material` (nil: the device's key only). With a
    /// passcode gate the TPM releases its secret first (unless the caller just made it,
    /// `gateSecret`), and the passcode's wrapping key is derived from both.
    ///
    /// - Throws: `PasscodeGate.WrongPasscode` when the TPM refuses the passcode (counted);
    ///   `PasscodeGate.open`'s statuses otherwise.
    func wrappingKeys(deviceKey: SymmetricKey, material: PasscodeMaterial?, gateSecret: SecureBytes? = nil) throws -> WrappingKeys {
        let device = try deviceKey.derive(purpose: "keybag device wrapping v1")
        guard let material else { return WrappingKeys(device: device, passcode: nil, fingerprint: nil) }
        let passcodeKey: SymmetricKey
        if let gate = passcodeGate {
            let secret = try gateSecret ?? PasscodeGate.open(gate, authValue: material.gateAuthorization())
            passcodeKey = try SymmetricKey.derive(
                from: SecureBytes.concatenating([material.mixed, secret]), purpose: "keybag passcode and TPM wrapping v1")
        } else {
            passcodeKey = try SymmetricKey.derive(from: material.mixed, purpose: "keybag passcode wrapping v1")
        }
        return WrappingKeys(device: device, passcode: passcodeKey, fingerprint: material.fingerprint)
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
