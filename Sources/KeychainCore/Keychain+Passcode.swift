import Foundation
import KeychainCrypto

/// The passcode and lock state: Data Protection's user-facing side (which protection classes are
/// open when, the passcode that wraps the class keys, and the delays after failed attempts).
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
        // Rows of classes that were locked when the search index was built can enter it now.
        indexPendingRows()
    }

    /// Locks the keychain in this process: the class A keys are dropped from memory (and zeroed),
    /// so `…WhenUnlocked…` and `…WhenPasscodeSet…` items are unavailable until the next unlock.
    /// Without a passcode there is nothing to lock, as on a device without one. Every
    /// authentication grant is forgotten too: after a lock the user authenticates again.
    public func lock() {
        keyRing.lock()
        grants.removeAll()
    }

    /// Sets, changes or removes the passcode.
    ///
    /// Every change replaces the class keys the passcode protects (classes A and C) with new
    /// random keys in a new keybag, and seals every row of those classes again (its attributes
    /// re-sealed, its item key re-wrapped), in one transaction that also makes the database name
    /// the new keybag. So a copy of the keybag taken before the change (which, without a
    /// passcode, opens with the device key alone) opens nothing written after it. The new
    /// keybag is written beside the old one first and moved into place after the commit; a
    /// crash at any point leaves either the old keybag and rows or the new ones, each opening
    /// with its own passcode (`Keybag.load(path:deviceKey:naming:)`). Other processes holding
    /// the keychain adopt the new keybag at their next transaction, before the first unlock
    /// with the new passcode.
    ///
    /// - Parameters:
    ///   - old: the current passcode; nil or empty when the keychain has none.
    ///   - new: the new passcode; nil or empty removes it. Removing it destroys the
    ///     `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` class key and deletes those items
    ///     (Apple: "Disabling the device passcode will cause all previously protected items to be
    ///     deleted").
    /// - Returns: how many items were deleted with the passcode.
    /// - Throws: `errSecAuthFailed` when `old` is wrong (counted, with the same delays as
    ///   `unlock`); a storage status when the attempt or the new keys cannot be written
    ///   (nothing changed then).
    @discardableResult
    public func changePasscode(from old: Data?, to new: Data?) throws -> Int {
        let oldSecret = old.flatMap { $0.isEmpty ? nil : SecureBytes(copying: $0) }
        let newSecret = new.flatMap { $0.isEmpty ? nil : SecureBytes(copying: $0) }
        var staged: Keybag?
        let replacement: (keybag: Keybag, keys: [KeybagClass: SymmetricKey], deleted: Int)
        do {
            replacement = try withKeybag { keybag, tx in
                var keys: [KeybagClass: SymmetricKey]
                if keybag.passcode != nil {
                    keys = try verifyPasscode(oldSecret ?? SecureBytes(copying: Data()), keybag: &keybag)
                } else {
                    guard oldSecret == nil else { throw KeychainError(.authFailed, "the keychain has no passcode") }
                    keys = try keybag.unwrap(KeybagClass.allCases, wrapping: keybag.wrappingKeys(deviceKey: deviceKey, passcode: nil))
                }
                var newKeys = keys
                for keyClass in KeybagClass.protectionClasses where keyClass.needsPasscode {
                    newKeys[keyClass] = try SymmetricKey.random()
                }
                if newSecret == nil { newKeys.removeValue(forKey: .whenPasscodeSetThisDeviceOnly) }
                var updated = keybag
                updated.uuid = try SecureRandom.data(count: 16)
                updated.attempts = PasscodeAttempts()
                let wrapping = try updated.setPasscode(
                    newSecret, iterations: try options.passcodeIterations ?? PasscodeKDF.calibrate(), deviceKey: deviceKey)
                try updated.setEntries(newKeys, wrapping: wrapping)
                try updated.stage(path: keybagPath, deviceKey: deviceKey)
                staged = updated
                let deleted = newSecret == nil ? try tx.deletePasscodeClassRows() : 0
                try resealRows(from: keys, to: newKeys, in: tx)
                try tx.setValue(updated.uuid, forKey: Self.keybagBindingKey)
                try options.passcodeChangeInterruption?(.beforeCommit)
                return (updated, newKeys, deleted)
            }
            try options.passcodeChangeInterruption?(.afterCommit)
        } catch {
            if let staged { settleStagedKeybag(staged) }
            throw error
        }
        // Another process may have moved it already, on meeting the database's new name.
        _ = try? FileSystem.moveAtomically(Keybag.stagedPath(keybagPath), over: keybagPath)
        try keyRing.replaceAll(
            replacement.keys, hasPasscode: newSecret != nil,
            passcodeClassEntry: replacement.keybag.entry(.whenPasscodeSetThisDeviceOnly)?.wrapped)
        boundKeybag.withLock { $0 = replacement.keybag.uuid }
        // The rows' previous ciphertexts leave the write-ahead log.
        store.checkpoint()
        return replacement.deleted
    }

    /// Where a passcode change can be interrupted in tests, to prove that each point leaves a
    /// keychain that opens (`KeychainOptions.passcodeChangeInterruption`).
    enum PasscodeChangePoint: Sendable {
        /// The new keybag is staged and the rows sealed again, but nothing has committed.
        case beforeCommit
        /// The database names the new keybag; its file has not been moved into place.
        case afterCommit
    }

    /// After a failed passcode change: the staged keybag is moved into place if the database
    /// names it after all, and removed otherwise (a change that did not commit leaves no keys).
    private func settleStagedKeybag(_ staged: Keybag) {
        let stagedPath = Keybag.stagedPath(keybagPath)
        let named = try? store.snapshot { try $0.value(forKey: Self.keybagBindingKey) }
        if named == staged.uuid {
            _ = try? FileSystem.moveAtomically(stagedPath, over: keybagPath)
        } else if named != nil {
            try? FileSystem.removeSecurely(stagedPath)
        }
    }

    /// Seals every row of the classes the passcode protects again, from `old` class keys to
    /// `new` ones, in the caller's transaction. Rows that do not open with the old keys (damaged,
    /// or not the version the ledger names) are left as they are: they did not open before.
    private func resealRows(
        from old: [KeybagClass: SymmetricKey], to new: [KeybagClass: SymmetricKey], in tx: KeychainStore.Transaction
    ) throws {
        func ring(_ keys: [KeybagClass: SymmetricKey]) throws -> KeyRing {
            try KeyRing(
                index: keyRing.index, classKeys: keys, hasPasscode: true, passcodeClassEntry: nil, autoLock: nil,
                clock: options.clock)
        }
        let protected = Protection.allCases.filter { KeybagClass($0).needsPasscode }.map(\.rawValue)
        try tx.resealRows(protectedBy: protected, from: ring(old), to: ring(new))
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

    /// Checks `passcode` against the keybag, enforcing and recording failed attempts.
    ///
    /// Fail closed: an attempt is recorded as failed (with the delay it brings) in the keybag
    /// file before the guess is evaluated, and a success clears the record. An attempt that
    /// cannot be recorded (a read-only directory, a full disk) is not evaluated, so there is no
    /// unlimited, unrecorded guessing.
    ///
    /// - Returns: every key of the keybag, unwrapped.
    /// - Throws: `errSecAuthFailed` during a delay or for the wrong passcode just tried (neither
    ///   counted nor evaluated again) or for a wrong passcode (counted); `errSecWrPerm`,
    ///   `errSecDiskFull` or `errSecIO` when the attempt cannot be recorded (not evaluated).
    private func verifyPasscode(_ passcode: SecureBytes, keybag: inout Keybag) throws -> [KeybagClass: SymmetricKey] {
        let now = options.clock.now
        if let wait = keybag.attempts.remainingDelay(at: now) {
            throw KeychainError(
                .authFailed, "too many failed passcode attempts: try again in \(Int(wait.rounded(.up))) seconds")
        }
        let material = try keybag.passcodeMaterial(deviceKey: deviceKey, passcode: passcode)
        let wrong = KeychainError(.authFailed, "the passcode is not correct")
        if let fingerprint = material?.fingerprint, keybag.attempts.repeatsLastWrongPasscode(fingerprint) { throw wrong }
        var attempted = keybag
        attempted.attempts.recordAttempt(at: now)
        try attempted.save(path: keybagPath, deviceKey: deviceKey)
        keybag = attempted
        // The failure is counted already; the fingerprint spares a repeat of this guess.
        func refuse() -> KeychainError {
            keybag.attempts.lastWrongFingerprint = material?.fingerprint
            try? keybag.save(path: keybagPath, deviceKey: deviceKey)
            return wrong
        }
        let wrapping: Keybag.WrappingKeys
        do {
            // With a passcode gate the TPM checks the passcode here (and counts a failure itself);
            // its lockout refuses the attempt without saying whether the passcode was right.
            wrapping = try keybag.wrappingKeys(deviceKey: deviceKey, material: material)
        } catch is PasscodeGate.WrongPasscode {
            throw refuse()
        }
        let keys: [KeybagClass: SymmetricKey]
        do {
            keys = try keybag.unwrap(KeybagClass.allCases, wrapping: wrapping)
        } catch let error as KeychainError where error.code == .authFailed {
            throw refuse()
        }
        // Cleared on success; if the file cannot be written now, the attempt stays counted.
        keybag.attempts = PasscodeAttempts()
        try? keybag.save(path: keybagPath, deviceKey: deviceKey)
        return keys
    }

    /// Checks, inside a write transaction, that the passcode-only class key this process holds is
    /// still the keychain's: another process may have removed or changed the passcode since.
    ///
    /// - Throws: `errSecAuthFailed` when the keychain no longer has a passcode;
    ///   `errSecInteractionNotAllowed` when the class is locked or was replaced (unlock again).
    func requirePasscodeClass(in tx: KeychainStore.Transaction) throws {
        guard let keybag = try Keybag.load(path: keybagPath, deviceKey: deviceKey), keybag.passcode != nil,
            let entry = keybag.entry(.whenPasscodeSetThisDeviceOnly)
        else {
            keyRing.dropPasscodeClass(passcodeRemoved: false)
            throw KeychainError(.authFailed, "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly needs a passcode, and none is set")
        }
        guard keyRing.passcodeClassEntry == entry.wrapped, keyRing.isAvailable(.whenPasscodeSetThisDeviceOnly) else {
            keyRing.dropPasscodeClass(passcodeRemoved: false)
            throw KeychainError.classLocked
        }
    }
}
