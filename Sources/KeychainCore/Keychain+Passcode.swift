import Foundation

/// The passcode and lock state: Data Protection's user-facing side (platform facts A.2–A.4).
///
/// Passcode changes and failed-attempt records are written to the keybag while holding the
/// database's write lock, so processes sharing a keychain apply them one at a time.
extension Keychain {
    /// The lock state in this process.
    public var lockState: LockState { keyRing.lockState }

    /// Whether the keychain has a passcode (as this process last saw it).
    public var hasPasscode: Bool { keyRing.hasPasscode }

    /// Unlocks the keychain in this process: class A and C items become available.
    ///
    /// A keychain without a passcode is always unlocked; an empty passcode unlocks it.
    ///
    /// - Throws: `errSecAuthFailed` for a wrong passcode (repeated failures impose Apple's
    ///   escalating delays, during which no attempt is evaluated; see `passcodeRetryDelay`).
    public func unlock(passcode: Data) throws {
        try withKeybag { keybag, _ in
            guard keybag.passcode != nil else {
                // No passcode (perhaps removed by another process): every class is available.
                let keys = try keybag.unwrap(KeybagClass.allCases, wrapping: keybag.wrappingKeys(deviceKey: deviceKey, passcode: nil))
                keyRing.dropPasscodeClass(passcodeRemoved: true)
                try keyRing.install(keys, hasPasscode: false, passcodeClassEntry: nil)
                guard passcode.isEmpty else { throw KeychainError(.authFailed, "the keychain has no passcode") }
                return
            }
            let keys = try verifyPasscode(SecureBytes(copying: passcode), keybag: &keybag)
            try keyRing.install(
                keys, hasPasscode: true, passcodeClassEntry: keybag.entry(.whenPasscodeSetThisDeviceOnly)?.wrapped)
        }
    }

    /// Locks the keychain in this process: the class A keys are dropped from memory (and zeroed),
    /// so `…WhenUnlocked…` and `…WhenPasscodeSet…` items are unavailable until the next unlock.
    /// Without a passcode there is nothing to lock, as on a device without one.
    public func lock() {
        keyRing.lock()
    }

    /// Sets, changes or removes the passcode.
    ///
    /// - Parameters:
    ///   - old: the current passcode; nil or empty when the keychain has none.
    ///   - new: the new passcode; nil or empty removes it. Removing it destroys the
    ///     `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` class key and deletes those items
    ///     (Apple: "Disabling the device passcode will cause all previously protected items to be
    ///     deleted").
    /// - Returns: how many items were deleted with the passcode.
    /// - Throws: `errSecAuthFailed` when `old` is wrong (counted, with the same delays as `unlock`).
    @discardableResult
    public func changePasscode(from old: Data?, to new: Data?) throws -> Int {
        let oldSecret = old.flatMap { $0.isEmpty ? nil : SecureBytes(copying: $0) }
        let newSecret = new.flatMap { $0.isEmpty ? nil : SecureBytes(copying: $0) }
        return try withKeybag { keybag, connection in
            var keys: [KeybagClass: SymmetricKey]
            if keybag.passcode != nil {
                keys = try verifyPasscode(oldSecret ?? SecureBytes(copying: Data()), keybag: &keybag)
            } else {
                guard oldSecret == nil else { throw KeychainError(.authFailed, "the keychain has no passcode") }
                keys = try keybag.unwrap(KeybagClass.allCases, wrapping: keybag.wrappingKeys(deviceKey: deviceKey, passcode: nil))
            }
            var updated = keybag
            updated.attempts = PasscodeAttempts()
            if newSecret != nil {
                updated.passcode = Keybag.PasscodeParameters(
                    salt: try SecureRandom.data(count: 16),
                    iterations: try options.passcodeIterations ?? PasscodeKDF.calibrate())
                if keys[.whenPasscodeSetThisDeviceOnly] == nil { keys[.whenPasscodeSetThisDeviceOnly] = try SymmetricKey.random() }
            } else {
                updated.passcode = nil
                keys.removeValue(forKey: .whenPasscodeSetThisDeviceOnly)
            }
            try updated.setEntries(keys, wrapping: updated.wrappingKeys(deviceKey: deviceKey, passcode: newSecret))
            try updated.save(path: keybagPath, deviceKey: deviceKey)
            var deleted = 0
            if newSecret == nil {
                deleted = try store.deletePasscodeClassRows(in: connection)
                keyRing.dropPasscodeClass(passcodeRemoved: true)
            }
            try keyRing.install(
                keys, hasPasscode: newSecret != nil,
                passcodeClassEntry: updated.entry(.whenPasscodeSetThisDeviceOnly)?.wrapped)
            return deleted
        }
    }

    /// How long until another passcode attempt will be evaluated; nil when one may be made now.
    public var passcodeRetryDelay: TimeInterval? {
        get throws {
            try withKeybag { keybag, _ in keybag.attempts.remainingDelay(at: options.clock.now) }
        }
    }

    /// The keychain's lock settings.
    public func settings() throws -> KeychainSettings {
        try withKeybag { keybag, _ in keybag.settings }
    }

    /// Stores new lock settings; an auto-lock interval takes effect in this process at once.
    public func updateSettings(_ settings: KeychainSettings) throws {
        try withKeybag { keybag, _ in
            keybag.settings = settings
            try keybag.save(path: keybagPath, deviceKey: deviceKey)
        }
        keyRing.setAutoLock(settings.autoLockInterval)
    }

    /// Locks the keychain after `interval` seconds without use (nil: never), keeping the other settings.
    public func setAutoLock(interval: TimeInterval?) throws {
        var settings = try settings()
        settings.useLockInterval = interval != nil
        settings.lockInterval = interval.map { Int($0.rounded(.up)) }
        try updateSettings(settings)
    }

    // MARK: - Internals

    /// The keybag file beside the database.
    var keybagPath: String { KeychainLocation.keybagPath(forDatabase: path) }

    /// Runs `body` with the current keybag, holding the database's write lock (so keybag updates
    /// from several processes never interleave); database changes `body` makes commit with it.
    func withKeybag<T>(_ body: (inout Keybag, SQLiteConnection) throws -> T) throws -> T {
        try store.withConnection { connection in
            try connection.writeTransaction {
                guard var keybag = try Keybag.load(path: keybagPath, deviceKey: deviceKey) else {
                    throw KeychainError(.invalidKeychain, "the keychain's keybag is missing")
                }
                guard keybag.uuid == keybagUUID else {
                    throw KeychainError(.invalidKeychain, "the keybag does not belong to this keychain")
                }
                return try body(&keybag, connection)
            }
        }
    }

    /// Checks `passcode` against the keybag, enforcing and recording failed attempts.
    ///
    /// - Returns: every key of the keybag, unwrapped.
    /// - Throws: `errSecAuthFailed` during a delay (not counted) or for a wrong passcode (counted,
    ///   unless it repeats the previous wrong one; the record is saved before the error is thrown).
    private func verifyPasscode(_ passcode: SecureBytes, keybag: inout Keybag) throws -> [KeybagClass: SymmetricKey] {
        let now = options.clock.now
        if let wait = keybag.attempts.remainingDelay(at: now) {
            throw KeychainError(
                .authFailed, "too many failed passcode attempts: try again in \(Int(wait.rounded(.up))) seconds")
        }
        let wrapping = try keybag.wrappingKeys(deviceKey: deviceKey, passcode: passcode)
        let keys: [KeybagClass: SymmetricKey]
        do {
            keys = try keybag.unwrap(KeybagClass.allCases, wrapping: wrapping)
        } catch let error as KeychainError where error.code == .authFailed {
            if let fingerprint = wrapping.fingerprint { keybag.attempts.recordFailure(fingerprint: fingerprint, at: now) }
            try keybag.save(path: keybagPath, deviceKey: deviceKey)
            throw error
        }
        if !keybag.attempts.isClear {
            keybag.attempts = PasscodeAttempts()
            try keybag.save(path: keybagPath, deviceKey: deviceKey)
        }
        return keys
    }

    /// Checks, inside a write transaction, that the passcode-only class key this process holds is
    /// still the keychain's: another process may have removed or changed the passcode since.
    ///
    /// - Throws: `errSecAuthFailed` when the keychain no longer has a passcode;
    ///   `errSecInteractionNotAllowed` when the class is locked or was replaced (unlock again).
    func requirePasscodeClass(in connection: SQLiteConnection) throws {
        guard let keybag = try Keybag.load(path: keybagPath, deviceKey: deviceKey), keybag.passcode != nil,
            let entry = keybag.entry(.whenPasscodeSetThisDeviceOnly)
        else {
            keyRing.dropPasscodeClass(passcodeRemoved: false)
            throw KeychainError(.authFailed, "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly needs a passcode, and none is set")
        }
        guard keyRing.passcodeClassEntry == entry.wrapped, keyRing.isAvailable(.whenPasscodeSetThisDeviceOnly) else {
            keyRing.dropPasscodeClass(passcodeRemoved: false)
            throw KeychainError(.interactionNotAllowed, "the keychain is locked: items of this accessibility are unavailable")
        }
    }
}
