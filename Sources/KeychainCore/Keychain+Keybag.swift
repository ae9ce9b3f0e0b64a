import Foundation

/// The keybag this process holds keys from, kept the one the database is sealed for.
///
/// The database names its keybag by UUID (`keybagBindingKey`). Setting, changing or removing the
/// passcode replaces the keybag: new class keys, a new UUID, every row of the passcode's classes
/// sealed again, in one transaction that also names the new keybag. Every transaction reads the
/// name first (`requireCurrentKeys`), so a process whose keys belong to a replaced keybag adopts
/// the new one before it reads or writes a row: it never seals with keys that no longer open
/// anything, and never takes rows sealed with the new keys for damaged ones.
extension Keychain {
    /// The `keychain` table's entry naming the keybag the rows are sealed for.
    static let keybagBindingKey = "keybag-uuid"

    /// How the device key of the keychain at `path` is kept (in a file, or sealed by the TPM),
    /// read from its directory's device key file without unsealing it; nil when the directory
    /// has no device key yet.
    ///
    /// - Throws: `errSecWrPerm` when the file is not private to the caller;
    ///   `errSecNotAvailable` when it cannot be read; `errSecInvalidKeychain` when it is not a
    ///   device key file.
    public static func deviceBinding(ofKeychainAt path: String) throws -> DeviceBinding? {
        try FileDeviceKey.binding(directory: (path as NSString).deletingLastPathComponent)
    }

    /// The keybag file beside the database.
    var keybagPath: String { KeychainLocation.keybagPath(forDatabase: path) }

    /// Makes this process's keys those of the keybag the database names, as seen by the
    /// caller's transaction.
    ///
    /// - Throws: `errSecInvalidKeychain` when the database names no keybag, or one that is not
    ///   there (an older copy of the keybag file was put back).
    func requireCurrentKeys(in tx: KeychainStore.Transaction) throws {
        guard let recorded = try tx.value(forKey: Self.keybagBindingKey) else {
            throw KeychainError(.invalidKeychain, "the keychain's database does not name its keybag: it was altered")
        }
        try requireCurrentKeys(named: recorded)
    }

    /// `requireCurrentKeys`, given the UUID the caller's statement read.
    func requireCurrentKeys(named recorded: Data) throws {
        if boundKeybag.withLock({ $0 == recorded }) { return }
        try adoptKeybag(named: recorded)
    }

    /// Loads the keybag named `uuid` and holds its keys from now on: the device-bound ones (a
    /// keychain with a passcode is then before its first unlock in this process, as the new
    /// passcode is not known here), or all of them without a passcode.
    @discardableResult
    func adoptKeybag(named uuid: Data) throws -> Keybag {
        let keybag = try Keybag.load(path: keybagPath, deviceKey: deviceKey, naming: uuid)
        let keys = try keybag.unwrap(KeybagClass.allCases, wrapping: keybag.wrappingKeys(deviceKey: deviceKey, passcode: nil))
        // A replacement keeps the index key (tokens and the ledger depend on it).
        guard let indexKey = keys[.index], try IndexKeys(indexKey: indexKey).tokens.hasSameBytes(as: keyRing.index.tokens)
        else {
            throw KeychainError(.invalidKeychain, "the keybag's index key is not this keychain's")
        }
        try keyRing.replaceAll(
            keys, hasPasscode: keybag.passcode != nil, passcodeClassEntry: keybag.entry(.whenPasscodeSetThisDeviceOnly)?.wrapped)
        boundKeybag.withLock { $0 = keybag.uuid }
        return keybag
    }

    /// Runs `body` with the current keybag, holding the database's write lock (so keybag updates
    /// from several processes never interleave); database changes `body` makes commit with it.
    func withKeybag<T>(_ body: (inout Keybag, KeychainStore.Transaction) throws -> T) throws -> T {
        try store.write { tx in
                guard let recorded = try tx.value(forKey: Self.keybagBindingKey) else {
                    throw KeychainError(.invalidKeychain, "the keychain's database does not name its keybag: it was altered")
                }
                try requireCurrentKeys(named: recorded)
                var keybag = try Keybag.load(path: keybagPath, deviceKey: deviceKey, naming: recorded)
                return try body(&keybag, tx)
        }
    }
}
