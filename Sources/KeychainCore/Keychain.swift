import Foundation
import KeychainCrypto
import Synchronization

/// One keychain: an encrypted SQLite store, the keybag whose class keys give
/// `kSecAttrAccessible` its meaning, and the SecItem semantics over them.
///
/// Instances are shared per path within a process and are safe to use from many threads; many
/// processes may use one keychain at once (SQLite WAL, `BEGIN IMMEDIATE` writes, bounded waits).
/// The lock state belongs to the instance, that is, to the process holding it.
public final class Keychain: Sendable {
    /// The database file.
    public let path: String
    let store: KeychainStore
    let keyRing: KeyRing
    let options: KeychainOptions
    /// The device key: wraps the keybag's device-bound keys, keys its MAC, binds backups.
    let deviceKey: SymmetricKey
    /// The UUID of the keybag whose keys `keyRing` holds. The database names the keybag it is
    /// sealed for; when that changes (a passcode set, changed or removed, perhaps by another
    /// process), the next transaction adopts the new keybag (`requireCurrentKeys`).
    let boundKeybag: Mutex<Data>
    /// Says that this process, not the daemon (or the daemon, alone), holds the keychain.
    let holder: HolderLock
    /// The plans this process's searches took (`queryPlanStatistics`).
    let planStatistics = Mutex(QueryPlanStatistics())
    /// The authentications this instance verified (`authenticate(passcode:grant:context:)`).
    let grants: AuthenticationGrants
    /// The private keys this instance holds in memory only (`generateEphemeralKey`).
    let ephemeralKeys = EphemeralHeldKeys()
    /// The biometric reader biometric constraints are checked with; nil: biometry is unavailable.
    let biometrics = Mutex<(any BiometricVerifier)?>(nil)

    private static let openKeychains = Mutex<[String: Keychain]>([:])

    /// The keychain at `path`, opened once per process (a keychain in the first storage format,
    /// version 1, is upgraded in place the first time).
    ///
    /// - Parameters:
    ///   - create: whether to create it (without a passcode) if absent; otherwise a missing
    ///     keychain is `errSecNoSuchKeychain`.
    ///   - options: costs and clock; they apply when this process first opens the keychain.
    /// - Throws: `errSecNoSuchKeychain`, `errSecInvalidKeychain` (a keybag that was altered or
    ///   belongs to another keychain or device), `errSecWrPerm` (its directory or one of its
    ///   files is not private to the calling user: `KeychainLocation.requirePrivate`), storage
    ///   errors.
    public static func open(path: String, create: Bool = true, options: KeychainOptions = .standard) throws -> Keychain {
        if let open = openKeychains.withLock({ $0[path] }) { return open }
        if !create && !FileSystem.exists(path) {
            throw KeychainError(.noSuchKeychain, "the specified keychain could not be found")
        }
        return register(try Keychain(path: path, options: options, created: nil))
    }

    /// The default keychain (`KeychainLocation.defaultKeychainPath`), created on first use.
    public static func openDefault() throws -> Keychain {
        if let keychain = lastDefault.withLock({ last in last.flatMap { $0.environment.isCurrent ? $0.keychain : nil } }) {
            return keychain
        }
        let environment = KeychainLocation.Environment()
        let keychain = try open(path: KeychainLocation.defaultKeychainPath)
        lastDefault.withLock { $0 = (environment, keychain) }
        return keychain
    }

    /// The keychain `openDefault` returned last, with the environment that chose it (every
    /// `SecItem` call asks for it; a change of `XDG_DATA_HOME` or `HOME` chooses again).
    private static let lastDefault = Mutex<(environment: KeychainLocation.Environment, keychain: Keychain)?>(nil)

    /// Creates a keychain at `path`, protected by `passcode` (none when nil or empty), and opens
    /// it unlocked. The passcode's derivation is calibrated to about 80 ms on this machine.
    ///
    /// - Throws: `errSecDuplicateKeychain` when a keychain exists at `path`; `errSecWrPerm` when
    ///   its directory (or a file already in it) is not private to the calling user.
    @discardableResult
    public static func create(path: String, passcode: Data?, options: KeychainOptions = .standard) throws -> Keychain {
        if FileSystem.exists(path) || FileSystem.exists(KeychainLocation.keybagPath(forDatabase: path)) {
            throw KeychainError(.duplicateKeychain, "a keychain with the same name already exists")
        }
        let directory = (path as NSString).deletingLastPathComponent
        try FileSystem.makePrivateDirectory(directory)
        try KeychainLocation.requirePrivate(database: path)
        let deviceKey = try (options.deviceKeySource ?? FileDeviceKey(directory: directory)).deviceKey()
        let secret = passcode.flatMap { $0.isEmpty ? nil : SecureBytes(copying: $0) }
        let (keybag, keys) = try Keybag.create(
            deviceKey: deviceKey, passcode: secret,
            iterations: try options.passcodeIterations ?? PasscodeKDF.calibrate())
        // The database's schema exists before its keybag does (see `init`).
        try KeychainStore.prepareSchema(path: path)
        guard try keybag.createFile(path: KeychainLocation.keybagPath(forDatabase: path), deviceKey: deviceKey) else {
            throw KeychainError(.duplicateKeychain, "a keychain with the same name already exists")
        }
        return register(try Keychain(path: path, options: options, created: (keybag, keys)))
    }

    /// Deletes the keychain at `path`: its database, keybag and (version-1) key file. Its items
    /// cannot be recovered; the directory's device key stays (other keychains use it).
    ///
    /// - Throws: `errSecNoSuchKeychain` when there is no keychain at `path`.
    public static func delete(path: String) throws {
        let keybagPath = KeychainLocation.keybagPath(forDatabase: path)
        guard FileSystem.exists(path) || FileSystem.exists(keybagPath) else {
            throw KeychainError(.noSuchKeychain, "the specified keychain could not be found")
        }
        forgetOpenInstance(path: path)
        HolderLock.release(database: path)
        // The keybag goes first (`KeychainLocation.files`): a deletion interrupted after it leaves
        // a database that opens nothing (and can be deleted again), never a keybag whose
        // database seems lost.
        for file in KeychainLocation.files(forDatabase: path) {
            try FileSystem.removeSecurely(file.path)
        }
    }

    /// Forgets this process's instance for `path` and drops its keys, as if the process had
    /// ended: the next `open` starts afresh (before the first unlock, when a passcode is set).
    @_spi(Testing)
    public static func forgetOpenInstance(path: String) {
        lastDefault.withLock { last in
            if last?.keychain.path == path { last = nil }
        }
        let keychain = openKeychains.withLock { $0.removeValue(forKey: path) }
        keychain?.keyRing.removeAll()
    }

    /// Stops this process's registry holding its instance for `path`, leaving the instance and
    /// its keys to whoever still holds it: its files close when the last holder lets it go, and
    /// the next `open` reads them afresh.
    @_spi(Testing)
    public static func releaseOpenInstance(path: String) {
        lastDefault.withLock { last in
            if last?.keychain.path == path { last = nil }
        }
        _ = openKeychains.withLock { $0.removeValue(forKey: path) }
    }

    /// Makes this process the only holder of the keychains it opens from now on: a process that
    /// opens one of them itself is refused until this one ends (`keychaind` calls it at start).
    package static func holdKeychainsExclusively() {
        HolderLock.exclusive.store(true, ordering: .relaxed)
    }

    /// Whether this process has the keychain at `path` open.
    package static func isOpen(path: String) -> Bool {
        openKeychains.withLock { $0[path] != nil }
    }

    /// Drops this process's instance for `path` and its keys: the next `open` reads the files
    /// afresh (the daemon does this when a keychain's files were replaced behind it).
    package static func dropOpenInstance(path: String) {
        forgetOpenInstance(path: path)
    }

    /// Checks that the keychain's directory and files are still private to the calling user, as
    /// every open checks them (the daemon checks again whenever a new client opens a keychain).
    ///
    /// - Throws: `errSecWrPerm` naming the file that is not private.
    package func requirePrivateFiles() throws {
        try KeychainLocation.requirePrivate(database: path)
    }

    /// The keychains this process has open (the daemon checks their lock states before it exits).
    package static func openInstances() -> [Keychain] {
        openKeychains.withLock { Array($0.values) }
    }

    /// A separate instance of the keychain at `path`, not shared with this process's other
    /// callers: it stands for the keychain as another process holds it.
    static func openSeparately(path: String, options: KeychainOptions) throws -> Keychain {
        try Keychain(path: path, options: options, created: nil)
    }

    private static func register(_ keychain: Keychain) -> Keychain {
        openKeychains.withLock { open in
            if let existing = open[keychain.path] { return existing }
            open[keychain.path] = keychain
            return keychain
        }
    }

    private init(path: String, options: KeychainOptions, created: (Keybag, [KeybagClass: SymmetricKey])?) throws {
        self.path = path
        self.options = options
        grants = AuthenticationGrants(clock: options.clock)
        let directory = (path as NSString).deletingLastPathComponent
        try FileSystem.makePrivateDirectory(directory)
        try KeychainLocation.requirePrivate(database: path)
        holder = try HolderLock.acquire(database: path)
        deviceKey = try (options.deviceKeySource ?? FileDeviceKey(directory: directory)).deviceKey()
        let keybagPath = KeychainLocation.keybagPath(forDatabase: path)

        // A keychain's database schema is created before its keybag is published. So a keybag
        // beside a database without a schema means the database lost what it held (it was
        // replaced, or copied without its -wal file before anything reached the main file): that
        // is reported, never taken for a new, empty keychain.
        var (keybag, keys): (Keybag, [KeybagClass: SymmetricKey])
        if let created {
            (keybag, keys) = created
        } else if let existing = try Keybag.load(path: keybagPath, deviceKey: deviceKey) {
            guard try KeychainStore.hasSchema(path: path) else {
                throw KeychainError(
                    .invalidKeychain,
                    "the keychain is damaged: its keybag exists but its database holds nothing (was the database replaced, or copied without its -wal file?)")
            }
            keybag = existing
            keys = try keybag.unwrap(KeybagClass.allCases, wrapping: keybag.wrappingKeys(deviceKey: deviceKey, passcode: nil))
        } else {
            try KeychainStore.prepareSchema(path: path)
            (keybag, keys) = try Keybag.create(deviceKey: deviceKey, passcode: nil, iterations: 0)
            if try !keybag.createFile(path: keybagPath, deviceKey: deviceKey) {
                guard let winner = try Keybag.load(path: keybagPath, deviceKey: deviceKey) else {
                    throw KeychainError(.notAvailable, "the keybag could not be created")
                }
                keybag = winner
                keys = try keybag.unwrap(KeybagClass.allCases, wrapping: keybag.wrappingKeys(deviceKey: deviceKey, passcode: nil))
            }
        }
        guard let indexKey = keys[.index] else { throw KeychainError(.invalidKeychain, "the keybag has no index key") }
        keyRing = try KeyRing(
            index: IndexKeys(indexKey: indexKey), classKeys: keys, hasPasscode: keybag.passcode != nil,
            passcodeClassEntry: keybag.entry(.whenPasscodeSetThisDeviceOnly)?.wrapped,
            autoLock: keybag.settings.autoLockInterval, clock: options.clock)
        boundKeybag = Mutex(keybag.uuid)
        store = try KeychainStore(path: path, keyRing: keyRing)

        try KeychainMigration.upgradeIfNeeded(self, keybag: keybag)
        try bindRollbackCounter()
        let removed: Bool = try store.snapshot { tx in
            // Usually there is nothing to write: look first, without the write lock. The keybag
            // the database names may have been replaced by another process since this one read
            // its file (the new file may still wait beside it): that one is adopted.
            if let recorded = try tx.value(forKey: Self.keybagBindingKey) {
                let current = recorded == keybag.uuid ? keybag : try adoptKeybag(named: recorded)
                if try current.entry(.whenPasscodeSetThisDeviceOnly) != nil || !tx.hasPasscodeClassRows() {
                    return false
                }
            }
            return try tx.writeTransaction { tx in
                let bound = try tx.establishValue(keybag.uuid, forKey: Self.keybagBindingKey)
                let current = bound == keybag.uuid ? keybag : try adoptKeybag(named: bound)
                // Items of the passcode-only class outlive their key only if a process of an
                // earlier version stopped between removing the passcode and deleting them.
                guard current.entry(.whenPasscodeSetThisDeviceOnly) == nil else { return false }
                return try tx.deletePasscodeClassRows() > 0
            }
        }
        if removed { store.scheduleCheckpoint() }
        try FileSystem.removeSecurely(KeychainLocation.legacyKeyFilePath(forDatabase: path))
        indexPendingRows()
        Self.bumpRegistryGeneration()
    }

    // MARK: - SecItemAdd

    /// Adds the item `request` describes (`SecItemAdd`).
    ///
    /// - Returns: the requested result parts, or nil when nothing was requested.
    /// - Throws: `errSecDuplicateItem`, `errSecMissingEntitlement`, `errSecAuthFailed` (a
    ///   passcode-only item with no passcode set), `errSecInteractionNotAllowed` (the item's
    ///   protection class is locked, even when the add would be a duplicate), `errSecParam`,
    ///   storage errors.
    public func add(_ request: ItemRequest, context: AccessContext) throws -> ItemResult? {
        if request.identity != nil { return try addIdentity(request, context: context) }
        let record: ItemRecord = try writing(sealing: { try prepareAdd(request, context: context) }) { prepared, tx in
            if prepared.record.protection == .whenPasscodeSetThisDeviceOnly { try requirePasscodeClass(in: tx) }
            return try tx.insert(prepared)
        }
        guard !request.returns.isEmpty else { return nil }
        return ItemResultBuilder(returns: request.returns).result(
            itemClass: record.itemClass, attributesOf: record, data: request.secret ?? Data(),
            persistentReference: record.persistentReference, leavingOutItemsWithoutObject: false
        ) { _ in reference(of: record, secret: request.secret) }
    }

    // MARK: - SecItemCopyMatching

    /// Finds the items `request` describes (`SecItemCopyMatching`).
    ///
    /// - Returns: at least one result.
    /// - Throws: `errSecItemNotFound` when nothing matches, `errSecDecode` when the query names a
    ///   damaged item exactly (`forEachMatch`), `errSecMissingEntitlement`,
    ///   `errSecInteractionNotAllowed` when the search meets an item whose protection class is
    ///   locked before it has found `kSecMatchLimit` items, storage errors.
    public func search(_ request: ItemRequest, context: AccessContext) throws -> [ItemResult] {
        try checkSearchEntitlements(request, context: context)
        let limit = (request.matchLimit ?? .one).maximum
        if limit == 0 { throw KeychainError(.itemNotFound, "a match limit of 0 matches nothing") }
        if request.itemClass == .identity {
            return try searchIdentities(request, context: context, limit: limit)
        }
        let results: [ItemResult] = try searchByPrimaryKey(request, context: context, limit: limit) ?? reading { tx in
            var results: [ItemResult] = []
            try forEachMatch(request, context: context, in: tx, reportingMissing: true) { record, row in
                if let result = try makeResult(
                    record, row: row, returns: request.returns, reportingDamage: true,
                    reading: SecretReading(request, context: context))
                {
                    results.append(result)
                }
                return limit.map { results.count < $0 } ?? true
            }
            return results
        }
        guard !results.isEmpty else { throw KeychainError(.itemNotFound, "no item matched the query") }
        return results
    }

    // MARK: - SecItemUpdate

    /// Applies `changes` to every item `request` matches (`SecItemUpdate`), in one transaction:
    /// if any item cannot be changed, none is.
    ///
    /// - Throws: `errSecItemNotFound`, `errSecDuplicateItem` (nothing changed), `errSecParam`,
    ///   `errSecMissingEntitlement`, `errSecInteractionNotAllowed` (an item of a locked class),
    ///   `errSecDecode` (a damaged item named exactly, or whose secret the update keeps).
    public func update(_ request: ItemRequest, changes: ItemChanges, context: AccessContext) throws {
        try checkSearchEntitlements(request, context: context)
        if let group = changes.attributes[.accessGroup]?.stringValue { try context.requireEntitlement(to: group) }
        if request.itemClass == .identity {
            try updateIdentities(request, changes: changes, context: context)
            return
        }
        try writing(removing: true) { tx in
            var matches: [(ItemRecord, StoredRow)] = []
            try forEachMatch(request, context: context, in: tx) { record, row in
                matches.append((record, row))
                return true
            }
            guard !matches.isEmpty else { throw KeychainError(.itemNotFound, "no item matched the query") }
            for (record, row) in matches {
                try apply(changes, to: record, row: row, in: tx, reading: SecretReading(request, context: context))
            }
        }
    }

    // MARK: - SecItemDelete

    /// Deletes every item `request` matches (`SecItemDelete`).
    ///
    /// A locked item is deleted when the query names only its primary key (the index decides the
    /// match without decrypting it); any other query that meets a locked item fails.
    ///
    /// - Returns: the number of items deleted (at least one).
    /// - Throws: `errSecItemNotFound`, `errSecMissingEntitlement`, `errSecInteractionNotAllowed`,
    ///   storage errors.
    @discardableResult
    public func delete(_ request: ItemRequest, context: AccessContext) throws -> Int {
        try checkSearchEntitlements(request, context: context)
        if request.itemClass == .identity {
            return try deleteIdentities(request, context: context)
        }
        return try writing(removing: true) { tx in
            if let count = try deleteByPrimaryKey(request, context: context, in: tx) {
                guard count > 0 else { throw KeychainError(.itemNotFound, "no item matched the query") }
                return count
            }
            var rowIDs: [Int64] = []
            var missingTokens: [Data] = []
            var classHasMissingRows = false
            // A damaged item named by its whole primary key is removed too, and so is the ledger's
            // entry for one whose row was removed (docs/reliability.md).
            try forEachCandidate(
                request, context: context, in: tx, lockedKeyMatches: true,
                damaged: { damage in
                    switch damage {
                    case .row(let row): rowIDs.append(row.rowID)
                    case .missing(let token): missingTokens.append(token)
                    case .missingRowsOfClass: classHasMissingRows = true
                    }
                }
            ) { _, row in
                rowIDs.append(row.rowID)
                return true
            }
            for rowID in rowIDs { try tx.delete(rowID: rowID) }
            for token in missingTokens { try tx.removeMissingItem(primaryKeyToken: token) }
            // Deleting a whole class also ends the damage of its removed rows: their entries go.
            var pruned = 0
            if classHasMissingRows && request.attributes.isEmpty && request.hostOrSubdomain == nil {
                pruned = try tx.pruneEntriesWithoutRows(of: request.itemClass)
                try tx.pruneDanglingSearchEntries()
            }
            let removed = rowIDs.count + missingTokens.count + pruned
            guard removed > 0 else { throw KeychainError(.itemNotFound, "no item matched the query") }
            return removed
        }
    }

    // MARK: - Whole keychain

    /// Every item the caller may see, with attributes and (if asked) secrets, in row order; items
    /// that fail authentication are skipped. Used by `security dump-keychain`. Secrets that
    /// access control guards are left out (the items are listed without them).
    ///
    /// - Throws: `errSecInteractionNotAllowed` when an item's protection class is locked.
    public func allItems(context: AccessContext, includingData: Bool) throws -> [ItemResult] {
        try allItemsWithDamage(context: context, includingData: includingData).items
    }

    /// `allItems`, and the damage met on the way: items whose rows fail authentication (left
    /// out), and items the keychain's ledger counts whose rows are gone. `security
    /// dump-keychain` reports both.
    public func allItemsWithDamage(context: AccessContext, includingData: Bool) throws -> (items: [ItemResult], damage: KeychainDamage) {
        try allItemsWithDamage(context: context, includingData: includingData, includingGuardedSecrets: false)
    }

    /// `allItemsWithDamage`; with `includingGuardedSecrets`, secrets that access control guards
    /// are read too (except those sealed under an application password, which cannot be): for
    /// the engine's own verification of its storage (upgrades), never offered to a caller.
    func allItemsWithDamage(
        context: AccessContext, includingData: Bool, includingGuardedSecrets: Bool
    ) throws -> (items: [ItemResult], damage: KeychainDamage) {
        try reading { tx in
            let (rows, missing) = try readableRows(in: tx)
            var unreadable = 0
            let items: [ItemResult] = try rows.compactMap { row in
                let record: ItemRecord
                switch store.open(row) {
                case .opened(let opened): record = opened
                case .damaged:
                    unreadable += 1
                    return nil
                case .locked: throw KeychainError.classLocked
                }
                guard context.isEntitled(to: record.accessGroup) else { return nil }
                var returns: ReturnOptions = [.attributes, .persistentReference]
                if includingData { returns.insert(.data) }
                if includingGuardedSecrets {
                    return try makeResult(record, row: row, returns: returns, reading: .storageVerification(context))
                }
                return try makeResult(record, row: row, returns: returns)
            }
            return (items, KeychainDamage(unreadableItems: unreadable, missingItems: missing))
        }
    }
}
