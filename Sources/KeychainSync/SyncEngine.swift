import Foundation
import KeychainCore

/// Sync of a keychain's synchronizable items with an account on a PostgreSQL server.
///
/// Local changes are found by comparing the keychain's synchronizable items with the mirror (the
/// state of each record as last synced, kept in the sync state): an item whose primary key the
/// mirror does not know is an addition, one whose content digest differs a change, a mirror entry
/// whose item is gone a deletion. So the engine needs no hook: every way an item can change
/// (any SecItem call, any process, the daemon, a restore) is seen at the next exchange. The
/// items are not all read for it: every write gives a row a new generation, which its clear
/// columns show, so an exchange opens only the rows whose generation is not the one it last saw
/// (`LocalVersions`, `readLocal`).
///
/// An exchange downloads first, then uploads. Downloads are applied deletions first, then
/// additions and changes; for the same record the server's version wins over a local change;
/// when two records carry the same primary key, the record with the lower id wins and the other
/// is deleted from the server. Uploads are one transaction of compare-and-swap writes on each
/// record's generation: if another device wrote first, nothing is written, and the exchange
/// downloads and tries again.
package enum SyncEngine {
    /// How many times an exchange downloads again after losing a race to upload.
    static let uploadAttempts = 4
    /// How many new items a download adds per keychain transaction (and per progress report).
    package static let additionBatch = 1000

    /// Told how far a download has got applying records: `applied` of `total` records fetched
    /// that change the keychain (after each batch of additions and at the end).
    package typealias Progress = (_ applied: Int, _ total: Int) -> Void

    // MARK: - Server

    /// Creates or upgrades the server's schema.
    package static func initServer(conninfo: String) throws -> SyncSchema.Outcome {
        try SyncSchema.install(on: PostgresConnection(conninfo))
    }

    // MARK: - Enable and join

    /// Creates the account of the connection's role with this keychain as its first device.
    ///
    /// - Returns: the recovery secret (shown once; another device joins with it).
    /// - Throws: `alreadyEnabled`, `noAccount` (the role already has an account), server errors.
    package static func enable(_ keychain: any KeychainHandle, conninfo: String) throws -> String {
        guard try SyncState.load(from: keychain) == nil else {
            throw SyncError(.alreadyEnabled, "this keychain already syncs with an account")
        }
        let connection = try PostgresConnection(conninfo)
        try SyncSchema.requireCurrent(on: connection)
        let keys = try AccountKeys.generate(accountID: UUID())
        let identity = try DeviceIdentity.generate()
        let secret = try RecoveryBottle.newSecret()
        let (salt, bottle) = try RecoveryBottle.seal(keys.topLevel, accountID: keys.accountID, secret: secret)
        let (signing, agreement) = try identity.publicPoints()
        var state = try SyncState(
            conninfo: conninfo, keys: keys, epoch: 1, identity: identity,
            trusted: [identity.deviceID.uuidString.lowercased(): TrustedDevice(signing: signing, agreement: agreement)])
        let manifest = try SyncManifest.make(version: 1, records: [:], signer: identity.deviceID, keys: keys)
        state.manifestVersion = manifest.version
        try remember(manifest, in: &state)
        do {
            try connection.transaction {
                let existing = try connection.execute("SELECT count(*) AS n FROM keychain_sync.account")
                guard try existing.integer(0, "n") == 0 else {
                    throw SyncError(.noAccount, "this server already holds an account for this role: use security sync join")
                }
                try connection.execute(
                    "INSERT INTO keychain_sync.account (account_id, bottle_salt, bottle_cost, bottle) VALUES ($1, $2, $3::integer, $4)",
                    [.uuid(keys.accountID), .bytes(salt), .integer(Int64(RecoveryBottle.cost)), .bytes(bottle)])
                for name in [AccountKeys.classA, AccountKeys.classC] {
                    guard let key = keys.classKeys[name] else { continue }
                    try connection.execute(
                        "INSERT INTO keychain_sync.sync_key (key_id, key_class, parent_key_id, wrapped) VALUES ($1, $2, $3, $4)",
                        [.uuid(key.id), .text(name), .uuid(keys.topLevel.id), .bytes(try keys.wrapClassKey(named: name))])
                }
                try register(identity, keys: keys, on: connection)
                try signList(of: state, on: connection)
                try writeManifest(manifest, replacing: nil, on: connection)
                try state.save(to: keychain)
            }
        } catch {
            SyncState.remove(from: keychain)
            throw error
        }
        return secret
    }

    /// Joins the account of the connection's role with its recovery secret.
    ///
    /// - Throws: `wrongRecoverySecret` (nothing is written anywhere), `alreadyEnabled`,
    ///   `noAccount`, `refused` (the server's keys do not authenticate), server errors.
    package static func join(_ keychain: any KeychainHandle, conninfo: String, recoverySecret: String) throws {
        guard try SyncState.load(from: keychain) == nil else {
            throw SyncError(.alreadyEnabled, "this keychain already syncs with an account")
        }
        let connection = try PostgresConnection(conninfo)
        try SyncSchema.requireCurrent(on: connection)
        let account = try connection.execute("SELECT account_id, bottle_salt, bottle_cost, bottle, key_epoch FROM keychain_sync.account")
        guard account.count == 1 else {
            throw SyncError(.noAccount, "this server holds no account for this role: use security sync enable")
        }
        let accountID = try account.uuid(0, "account_id")
        let topLevel = try RecoveryBottle.open(
            try account.bytes(0, "bottle") ?? Data(), salt: try account.bytes(0, "bottle_salt") ?? Data(),
            cost: Int(try account.integer(0, "bottle_cost")), accountID: accountID, secret: recoverySecret)
        let keys = try classKeys(on: connection, accountID: accountID, topLevel: topLevel)
        let identity = try DeviceIdentity.generate()
        let (signing, agreement) = try identity.publicPoints()
        var trusted = try vouchedDevices(on: connection, keys: keys)
        trusted[identity.deviceID.uuidString.lowercased()] = TrustedDevice(signing: signing, agreement: agreement)
        let state = try SyncState(
            conninfo: conninfo, keys: keys, epoch: try account.integer(0, "key_epoch"), identity: identity, trusted: trusted)
        do {
            try connection.transaction {
                try register(identity, keys: keys, on: connection)
                try signList(of: state, on: connection)
                try state.save(to: keychain)
            }
        } catch {
            SyncState.remove(from: keychain)
            throw error
        }
    }

    /// Writes a device's public keys with the TLK holders' vouch.
    static func register(_ identity: DeviceIdentity, keys: AccountKeys, on connection: PostgresConnection) throws {
        let (signing, agreement) = try identity.publicPoints()
        try register(identity.deviceID, TrustedDevice(signing: signing, agreement: agreement), keys: keys, on: connection)
    }

    /// Writes (or rewrites) device `id`'s public keys with the TLK holders' vouch under `keys`.
    static func register(_ id: UUID, _ device: TrustedDevice, keys: AccountKeys, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO keychain_sync.device (device_id, signing_key, agreement_key, vouch) VALUES ($1, $2, $3, $4)
            ON CONFLICT (owner, device_id) DO UPDATE
            SET signing_key = excluded.signing_key, agreement_key = excluded.agreement_key, vouch = excluded.vouch
            """,
            [.uuid(id), .bytes(device.signing), .bytes(device.agreement),
             .bytes(try keys.vouch(deviceID: id, signing: device.signing, agreement: device.agreement))])
    }

    /// The account's class keys under `topLevel`, each authenticated by it.
    ///
    /// - Throws: `SyncError.refused` when a row does not authenticate or a class is missing.
    static func classKeys(on connection: PostgresConnection, accountID: UUID, topLevel: AccountKeys.Key) throws -> AccountKeys {
        let keyRows = try connection.execute("SELECT key_id, key_class, parent_key_id, wrapped FROM keychain_sync.sync_key")
        var classKeys: [String: AccountKeys.Key] = [:]
        for row in 0..<keyRows.count {
            let name = try keyRows.string(row, "key_class")
            classKeys[name] = try AccountKeys.unwrapClassKey(
                try keyRows.bytes(row, "wrapped") ?? Data(), id: try keyRows.uuid(row, "key_id"), name: name,
                parent: try keyRows.uuid(row, "parent_key_id"), accountID: accountID, topLevel: topLevel)
        }
        guard classKeys[AccountKeys.classA] != nil, classKeys[AccountKeys.classC] != nil else {
            throw SyncError(.refused, "the server does not hold the account's class keys")
        }
        return AccountKeys(accountID: accountID, topLevel: topLevel, classKeys: classKeys)
    }

    // MARK: - Exchange

    /// One full exchange: downloads and applies other devices' changes, then uploads this
    /// keychain's, then collects the account's tombstones older than their lifetime.
    ///
    /// The outcome is recorded in the sync state: the time of the last exchange that succeeded,
    /// or why the last one failed (`lastError`, shown by `sync status`).
    ///
    /// - Returns: what it did; records the server changed, replayed or withheld are refused (listed
    ///   in the report, nothing applied from them) and then nothing is uploaded.
    /// - Throws: `notEnabled`, `conflict` (lost the race `uploadAttempts` times), `refused` (the
    ///   server's account is not this keychain's), server and keychain errors.
    package static func syncNow(_ keychain: any KeychainHandle, progress: Progress? = nil) throws -> SyncReport {
        var state = try requireState(keychain)
        do {
            let report = try exchange(keychain, state: &state, progress: progress)
            if let refusal = report.refused.first {
                state.lastError = "refused: \(refusal)"
            } else {
                state.lastError = nil
                state.lastSync = Date()
            }
            try state.save(to: keychain)
            return report
        } catch {
            // What was applied is kept with the reason the exchange stopped.
            state.lastError = (error as? SyncError)?.message ?? "\(error)"
            try? state.save(to: keychain)
            throw error
        }
    }

    /// The exchange of `syncNow`, on `state` (saved by the caller): each attempt brings the
    /// trusted devices and keys up to date first, so nothing is read or written under keys a
    /// roll retired, and a device removed from the account stops there.
    private static func exchange(_ keychain: any KeychainHandle, state: inout SyncState, progress: Progress?) throws -> SyncReport {
        let connection = try connect(state)
        var report = SyncReport()
        for attempt in 1...uploadAttempts {
            try refreshTrust(connection, state: &state)
            do {
                let server = try download(connection, keychain: keychain, state: &state, report: &report, progress: progress)
                guard report.refused.isEmpty else { return report }
                report.damagedLocally = server.local.missingItems > 0 || server.local.withholdsDeletions
                try upload(connection, keychain: keychain, state: &state, report: &report, server: server)
                break
            } catch let error as SyncError where error.code == .conflict && attempt < uploadAttempts {
                continue
            }
        }
        try publishCheckpoint(connection, state: &state)
        try connection.execute("SELECT keychain_sync.collect_tombstones() AS collected")
        return report
    }

    /// The keychain's sync state.
    ///
    /// - Throws: `SyncError.notEnabled` when it has none.
    static func requireState(_ keychain: any KeychainHandle) throws -> SyncState {
        guard let state = try SyncState.load(from: keychain) else {
            throw SyncError(.notEnabled, "this keychain does not sync (use security sync enable or join)")
        }
        return state
    }

    /// A connection to the state's server, whose schema is current and whose account is the
    /// state's.
    static func connect(_ state: SyncState) throws -> PostgresConnection {
        let connection = try PostgresConnection(state.conninfo)
        try SyncSchema.requireCurrent(on: connection)
        let account = try connection.execute("SELECT account_id FROM keychain_sync.account")
        guard account.count == 1, try account.uuid(0, "account_id") == state.accountID else {
            throw SyncError(.refused, "the server's account is not the one this keychain joined")
        }
        return connection
    }

    /// The server's state as a verified download left it, for the upload that follows.
    private struct ServerView {
        /// The live records (record id → generation) the manifest describes.
        var records: [String: Int64]
        /// The manifest's version; nil when the account has none yet.
        var manifestVersion: Int64?
        /// The keychain's synchronizable items as the download left them (read after it
        /// applied what it fetched), by primary-key digest.
        var local: LocalItems
    }

    /// The notification channel of an account's changes (`NOTIFY`, sent by each upload).
    package static func channel(for accountID: UUID) -> String {
        "keychain_sync_" + accountID.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Fetches the records changed since the last exchange (every record when the last sequence
    /// seen is below the server's tombstone horizon), checks them and the account's manifest, and
    /// applies them.
    ///
    /// - Returns: the server's records as the manifest describes them.
    private static func download(
        _ connection: PostgresConnection, keychain: any KeychainHandle, state: inout SyncState, report: inout SyncReport,
        progress: Progress?
    ) throws -> ServerView {
        // One snapshot: the key epoch, the horizon, the manifest and the records agree with each
        // other.
        let (horizon, manifestRows, checkpointRows, rows) = try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
            let account = try connection.execute("SELECT account_id, gc_horizon, key_epoch FROM keychain_sync.account")
            guard account.count == 1, try account.uuid(0, "account_id") == state.accountID else {
                throw SyncError(.refused, "the server's account is not the one this keychain joined")
            }
            // Keys rolled since this attempt brought them up to date: the records and the
            // manifest are sealed under keys it does not hold yet (the next attempt takes them).
            guard try account.integer(0, "key_epoch") == state.keyEpoch ?? 1 else {
                throw SyncError(.conflict, "the account's keys rolled meanwhile")
            }
            let horizon = try account.integer(0, "gc_horizon")
            let full = state.lastSequence < horizon
            let manifest = try connection.execute("SELECT version, record_count, digest, signer, code FROM keychain_sync.manifest")
            let checkpoints = try connection.execute(checkpointQuery)
            let rows = try connection.execute(
                """
                SELECT record_id, parent_key_id, generation, ciphertext, deleted, change_seq FROM keychain_sync.record
                WHERE change_seq > $1 ORDER BY change_seq
                """,
                [.integer(full ? 0 : state.lastSequence)])
            return (horizon, manifest, checkpoints, rows)
        }
        let full = state.lastSequence < horizon
        report.fullRefetch = full
        let keys = state.keys
        let sealer = RecordSealer(keys: keys)
        var deletions: [String] = []
        var changes: [(key: String, generation: Int64, item: SyncedItem)] = []
        var resealed: [(key: String, generation: Int64)] = []
        // A full fetch saw everything up to the horizon (the collected tombstones included).
        var lastSequence = max(state.lastSequence, horizon)
        // The live records on the server: what this device knew (unless it fetches everything),
        // with what the feed brings.
        var serverRecords: [String: Int64] = [:]
        if !full {
            serverRecords = state.mirror.mapValues(\.generation)
            for (key, generation) in state.unsentDeletions ?? [:] { serverRecords[key] = generation }
        }
        var fetched = Set<String>()
        for row in 0..<rows.count {
            do {
                let id = try rows.uuid(row, "record_id")
                let key = id.uuidString.lowercased()
                let generation = try rows.integer(row, "generation")
                let parent = try rows.uuid(row, "parent_key_id")
                let deleted = try rows.boolean(row, "deleted")
                lastSequence = max(lastSequence, try rows.integer(row, "change_seq"))
                fetched.insert(key)
                serverRecords[key] = deleted ? nil : generation
                if let known = state.mirror[key], generation <= known.generation {
                    guard generation == known.generation else {
                        throw SyncError(.refused, "record \(id) came back at generation \(generation), older than \(known.generation)")
                    }
                    continue
                }
                let contents = try sealer.open(
                    try rows.bytes(row, "ciphertext") ?? Data(), recordID: id, parent: parent, generation: generation, deleted: deleted)
                switch contents {
                case .deleted:
                    deletions.append(key)
                case .item(let item):
                    guard keys.classKey(forProtection: item.value(.accessible)?.stringValue)?.key.id == parent else {
                        throw SyncError(.refused, "record \(id) is sealed under a class key that does not match its item")
                    }
                    if let known = state.mirror[key], try item.contentDigest() == known.record ?? known.content {
                        // The same item sealed again under rolled keys: a local change still wins.
                        resealed.append((key, generation))
                    } else {
                        changes.append((key, generation, item))
                    }
                }
            } catch let error as SyncError where error.code == .refused {
                report.refused.append(error.message)
            }
        }
        guard report.refused.isEmpty else { return ServerView(records: [:], manifestVersion: nil, local: LocalItems(items: [:])) }
        let manifest: SyncManifest?
        do {
            manifest = try verifiedManifest(manifestRows, describing: serverRecords, state: state)
            try checkCheckpoints(checkpointRows, against: manifest, state: &state)
        } catch let error as SyncError where error.code == .refused {
            report.refused.append(error.message)
            return ServerView(records: [:], manifestVersion: nil, local: LocalItems(items: [:]))
        }
        if full {
            // Records this device holds that the server no longer has at all: deleted, and their
            // tombstones collected.
            deletions += state.mirror.keys.filter { !fetched.contains($0) }.sorted()
        }

        for (key, generation) in resealed { state.mirror[key]?.generation = generation }
        var local = try readLocal(keychain, known: state.localVersions, mirror: state.mirror)
        if local.versions != nil { state.localVersions = local.versions }
        try open(deletions.compactMap { state.mirror[$0]?.primaryKey }, in: &local, keychain: keychain)
        for key in deletions {
            guard let entry = state.mirror[key] else { continue }
            // An item that does not open (damaged) is left as it is. The record leaves the mirror
            // only once its item is deleted: if the delete fails, the state saved with the error
            // still holds it, so the next exchange deletes the item instead of uploading it as new.
            if let item = local.entries[entry.primaryKey]?.item {
                try deleteLocally(item, in: keychain)
            }
            local.entries[entry.primaryKey] = nil
            state.mirror[key] = nil
            report.appliedDeletions += 1
        }
        var unsent = (state.unsentDeletions ?? [:]).filter { !fetched.contains($0.key) }
        var applied: [String] = []
        // New items are added in batches (one transaction each when the keychain is in this
        // process); the batch is flushed before any other write, so writes keep their order.
        // The mirror names a batch's records from the start (collisions are decided against it),
        // so a batch that fails takes its records out again: this device does not hold them, and
        // the next exchange fetches them again (the last sequence seen has not moved).
        var additions: [LocalItems.Sent] = []
        var additionKeys: [String] = []
        // Whether rows were written other than by `addReturningVersions` (then read back).
        var readBack = false
        func flushAdditions() throws {
            guard !additions.isEmpty else { return }
            try local.recordAdded(try addLocally(additions.map(\.item), in: keychain), sent: additions)
            // As stored, so that a state saved after a later failure does not take these
            // items for local changes.
            for (key, sent) in zip(additionKeys, additions) {
                if let content = local.entries[sent.primaryKey]?.content, !content.isEmpty {
                    state.mirror[key]?.content = content
                } else {
                    readBack = true
                }
            }
            additions.removeAll()
            additionKeys.removeAll()
        }
        // The record holding each primary key, kept with the mirror.
        var recordByPrimaryKey: [String: String] = [:]
        for (key, entry) in state.mirror { recordByPrimaryKey[entry.primaryKey] = key }
        do {
            for (done, change) in changes.enumerated() {
                if additions.count >= additionBatch {
                    try flushAdditions()
                    progress?(done, changes.count)
                }
                let primaryKey = try change.item.primaryKeyDigest()
                if let entry = state.mirror[change.key], entry.primaryKey != primaryKey {
                    if recordByPrimaryKey[entry.primaryKey] == change.key { recordByPrimaryKey[entry.primaryKey] = nil }
                    if local.entries[entry.primaryKey] != nil {
                        try flushAdditions()
                        try open([entry.primaryKey], in: &local, keychain: keychain)
                        if let previous = local.entries.removeValue(forKey: entry.primaryKey)?.item {
                            readBack = true
                            try deleteLocally(previous, in: keychain)
                        }
                    }
                }
                if let otherKey = recordByPrimaryKey[primaryKey], otherKey != change.key, let other = state.mirror[otherKey] {
                    if change.key < otherKey {
                        unsent[otherKey] = other.generation
                        state.mirror[otherKey] = nil
                    } else {
                        unsent[change.key] = change.generation
                        continue
                    }
                }
                let recordDigest = try change.item.contentDigest()
                recordByPrimaryKey[primaryKey] = change.key
                report.applied += 1
                if let present = local.entries[primaryKey], present.content == recordDigest {
                    // The keychain holds this very item (a first sync resumed after it was cut
                    // short, or the same item made on both devices): nothing to write.
                    state.mirror[change.key] = SyncState.MirrorEntry(
                        primaryKey: primaryKey, content: recordDigest, generation: change.generation, record: recordDigest)
                    continue
                }
                if local.entries[primaryKey] != nil {
                    try flushAdditions()
                    readBack = true
                    try storeLocally(change.item, replacing: true, in: keychain)
                } else {
                    additions.append(LocalItems.Sent(item: change.item, primaryKey: primaryKey, content: recordDigest))
                    additionKeys.append(change.key)
                }
                local.entries[primaryKey] = LocalItems.Entry(version: nil, content: "", item: change.item)
                state.mirror[change.key] = SyncState.MirrorEntry(
                    primaryKey: primaryKey, content: "", generation: change.generation, record: recordDigest)
                applied.append(change.key)
            }
            try flushAdditions()
        } catch {
            // What was applied stays recorded (the caller saves the state with the error): the
            // rows added are known as stored; the records of the batch that failed are not
            // held; the records that lost a collision are still to be deleted from the server.
            if local.versions != nil { state.localVersions = local.versions }
            for key in additionKeys { state.mirror[key] = nil }
            state.unsentDeletions = unsent.isEmpty ? nil : unsent
            throw error
        }
        if !changes.isEmpty { progress?(changes.count, changes.count) }
        // The digest of what the keychain stored (it may normalise what it was given), so the
        // next comparison does not take an applied record for a local change.
        if !applied.isEmpty {
            let withholdsDeletions = local.withholdsDeletions
            if local.versions != nil {
                // Items added in this process are known as stored; when rows were written
                // otherwise, they have new versions, and are opened.
                if readBack { local = try readLocal(keychain, known: local.versions, mirror: state.mirror) }
                state.localVersions = local.versions
            } else {
                let primaryKeys = applied.compactMap { state.mirror[$0]?.primaryKey }
                local = LocalItems(items: primaryKeys.count <= storedLookupLimit
                    ? try storedItems(primaryKeys, of: local.openedItems, in: keychain) : try localItems(keychain))
            }
            local.withholdsDeletions = local.withholdsDeletions || withholdsDeletions
            for key in applied {
                guard let entry = state.mirror[key] else { continue }
                state.mirror[key]?.content = local.entries[entry.primaryKey]?.content ?? ""
            }
        }
        state.unsentDeletions = unsent.isEmpty ? nil : unsent
        state.lastSequence = lastSequence
        if let manifest {
            state.manifestVersion = manifest.version
            try remember(manifest, in: &state)
        }
        return ServerView(records: serverRecords, manifestVersion: manifest?.version, local: local)
    }

    /// The account's manifest, checked: written by a holder of the account's keys, not older than
    /// one this device verified before, and describing exactly `records`.
    ///
    /// - Returns: nil when the account has no manifest and this device never saw one.
    /// - Throws: `SyncError.refused` otherwise.
    static func verifiedManifest(_ rows: PostgresRows, describing records: [String: Int64], state: SyncState) throws -> SyncManifest? {
        guard rows.count == 1 else {
            guard rows.count == 0, (state.manifestVersion ?? 0) == 0 else {
                throw SyncError(.refused, "the server withheld the account's manifest")
            }
            return nil
        }
        let manifest = SyncManifest(
            version: try rows.integer(0, "version"), count: try rows.integer(0, "record_count"),
            digest: try rows.bytes(0, "digest") ?? Data(), signer: try rows.uuid(0, "signer"), code: try rows.bytes(0, "code") ?? Data())
        guard manifest.isAuthentic(keys: state.keys) else {
            throw SyncError(.refused, "the account's manifest does not authenticate (changed by the server)")
        }
        guard manifest.version >= (state.manifestVersion ?? 0) else {
            throw SyncError(.refused, "the account's manifest went back from version \(state.manifestVersion ?? 0) to \(manifest.version)")
        }
        guard try manifest.describes(records) else {
            throw SyncError(
                .refused,
                "the server's records do not match the account's signed manifest (version \(manifest.version): \(manifest.count) records; "
                    + "the server gave \(records.count)): a record was withheld, hidden or added")
        }
        return manifest
    }

    /// One upload write.
    private enum Write {
        case add(SyncedItem, primaryKey: String)
        case change(key: String, expected: Int64, SyncedItem, primaryKey: String)
        case delete(key: String, expected: Int64)
    }

    /// Uploads the differences between the keychain and the mirror, the records that lost a
    /// collision, and the new manifest, in one transaction, then notifies the account's channel.
    ///
    /// - Throws: `SyncError.conflict` when the manifest or a record changed on the server
    ///   meanwhile (nothing is written, the mirror is unchanged).
    private static func upload(
        _ connection: PostgresConnection, keychain: any KeychainHandle, state: inout SyncState, report: inout SyncReport,
        server: ServerView
    ) throws {
        var local = server.local
        let writes = try pendingWrites(&local, keychain: keychain, state: state)
            + (state.unsentDeletions ?? [:]).sorted(by: { $0.key < $1.key }).map { Write.delete(key: $0.key, expected: $0.value) }
        guard !writes.isEmpty || server.manifestVersion == nil else { return }
        let keys = state.keys
        let sealer = RecordSealer(keys: keys)
        guard let deletionKey = keys.classKeys[AccountKeys.classA] else { throw SyncError(.keychain, "the sync state has no class keys") }
        var mirror = state.mirror
        var records = server.records
        var counts = (uploaded: 0, deleted: 0)
        let version = (server.manifestVersion ?? 0) + 1
        var written: SyncManifest?
        try connection.transaction {
            // The manifest's row first: its lock orders the account's uploads (and key rolls), so
            // each takes its change sequences after the previous one committed (a download never
            // passes over a sequence that commits later).
            let current = try connection.execute("SELECT version FROM keychain_sync.manifest FOR UPDATE")
            guard (current.count == 0 ? nil : try current.integer(0, "version")) == server.manifestVersion else {
                throw SyncError(.conflict, "the account's manifest changed on the server meanwhile")
            }
            // A key roll takes this row's lock too: nothing is written under keys it retired.
            let account = try connection.execute("SELECT key_epoch FROM keychain_sync.account FOR SHARE")
            guard account.count == 1, try account.integer(0, "key_epoch") == state.keyEpoch ?? 1 else {
                throw SyncError(.conflict, "the account's keys rolled meanwhile")
            }
            for write in writes {
                switch write {
                case .add(let item, let primaryKey):
                    guard let classKey = keys.classKey(forProtection: item.value(.accessible)?.stringValue)?.key else { continue }
                    let id = UUID()
                    let inserted = try connection.execute(
                        """
                        INSERT INTO keychain_sync.record (record_id, parent_key_id, generation, ciphertext)
                        VALUES ($1, $2, 1, $3) ON CONFLICT DO NOTHING
                        """,
                        [.uuid(id), .uuid(classKey.id), .bytes(try sealer.seal(.item(item), recordID: id, generation: 1, classKey: classKey))])
                    guard inserted.affected == 1 else { throw SyncError(.conflict, "a record id was taken") }
                    let key = id.uuidString.lowercased()
                    let digest = try item.contentDigest()
                    mirror[key] = SyncState.MirrorEntry(primaryKey: primaryKey, content: digest, generation: 1, record: digest)
                    records[key] = 1
                    counts.uploaded += 1
                case .change(let key, let expected, let item, let primaryKey):
                    guard let classKey = keys.classKey(forProtection: item.value(.accessible)?.stringValue)?.key,
                        let id = UUID(uuidString: key)
                    else { continue }
                    try swap(connection, id: id, expected: expected, parent: classKey.id, deleted: false,
                             ciphertext: try sealer.seal(.item(item), recordID: id, generation: expected + 1, classKey: classKey))
                    let digest = try item.contentDigest()
                    mirror[key] = SyncState.MirrorEntry(primaryKey: primaryKey, content: digest, generation: expected + 1, record: digest)
                    records[key] = expected + 1
                    counts.uploaded += 1
                case .delete(let key, let expected):
                    guard let id = UUID(uuidString: key) else { continue }
                    try swap(connection, id: id, expected: expected, parent: deletionKey.id, deleted: true,
                             ciphertext: try sealer.seal(.deleted, recordID: id, generation: expected + 1, classKey: deletionKey))
                    mirror[key] = nil
                    records[key] = nil
                    counts.deleted += 1
                }
            }
            let manifest = try SyncManifest.make(version: version, records: records, signer: state.deviceID, keys: keys)
            try writeManifest(manifest, replacing: server.manifestVersion, on: connection)
            written = manifest
            // Delivered when the transaction commits, to every device listening.
            try connection.execute(
                "SELECT pg_notify($1, $2)", [.text(channel(for: state.accountID)), .text(state.deviceID.uuidString.lowercased())])
        }
        state.mirror = mirror
        state.unsentDeletions = nil
        state.manifestVersion = version
        if let written { try remember(written, in: &state) }
        report.uploaded += counts.uploaded
        report.uploadedDeletions += counts.deleted
    }

    /// Stores `manifest` in place of the one at version `previous` (inserts the first).
    static func writeManifest(_ manifest: SyncManifest, replacing previous: Int64?, on connection: PostgresConnection) throws {
        let values: [PostgresValue] = [
            .integer(manifest.version), .integer(manifest.count), .bytes(manifest.digest), .uuid(manifest.signer), .bytes(manifest.code),
        ]
        let written: PostgresRows
        if let previous {
            written = try connection.execute(
                """
                UPDATE keychain_sync.manifest SET version = $1, record_count = $2, digest = $3, signer = $4, code = $5
                WHERE version = $6
                """,
                values + [.integer(previous)])
        } else {
            written = try connection.execute(
                """
                INSERT INTO keychain_sync.manifest (version, record_count, digest, signer, code)
                VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING
                """,
                values)
        }
        guard written.affected == 1 else { throw SyncError(.conflict, "the account's manifest changed on the server meanwhile") }
    }

    /// Replaces a record if its generation is still `expected`.
    private static func swap(
        _ connection: PostgresConnection, id: UUID, expected: Int64, parent: UUID, deleted: Bool, ciphertext: Data
    ) throws {
        let updated = try connection.execute(
            """
            UPDATE keychain_sync.record
            SET parent_key_id = $1, generation = $2, ciphertext = $3, deleted = $4,
                change_seq = nextval('keychain_sync.change_seq'), changed_at = now()
            WHERE record_id = $5 AND generation = $6
            """,
            [.uuid(parent), .integer(expected + 1), .bytes(ciphertext), .boolean(deleted), .uuid(id), .integer(expected)])
        guard updated.affected == 1 else { throw SyncError(.conflict, "record \(id) changed on the server meanwhile") }
    }

    /// The writes that bring the server to the keychain's state; the items they upload are
    /// opened (an item that does not open is not uploaded, nor taken for a deletion).
    private static func pendingWrites(_ local: inout LocalItems, keychain: any KeychainHandle, state: SyncState) throws -> [Write] {
        var recordByPrimaryKey: [String: String] = [:]
        for (key, entry) in state.mirror { recordByPrimaryKey[entry.primaryKey] = key }
        let differing = local.entries.filter { primaryKey, local in
            guard let key = recordByPrimaryKey[primaryKey], let entry = state.mirror[key] else { return true }
            return local.content != entry.content
        }
        try open(Array(differing.keys), in: &local, keychain: keychain)
        var writes: [Write] = []
        for primaryKey in differing.keys.sorted() {
            guard let item = local.entries[primaryKey]?.item else { continue }
            if let key = recordByPrimaryKey[primaryKey], let entry = state.mirror[key] {
                if try item.contentDigest() != entry.content {
                    writes.append(.change(key: key, expected: entry.generation, item, primaryKey: primaryKey))
                }
            } else {
                writes.append(.add(item, primaryKey: primaryKey))
            }
        }
        // An absent item is a deletion, unless the keychain cannot tell (rows removed behind
        // its back that its versions do not name): then deletions wait for the damage to clear.
        let deleted = local.withholdsDeletions ? [:] : state.mirror.filter { local.entries[$0.value.primaryKey] == nil }
        for (key, entry) in deleted.sorted(by: { $0.key < $1.key }) {
            writes.append(.delete(key: key, expected: entry.generation))
        }
        return writes
    }

    // MARK: - Status

    /// The account, the devices, the last exchange and the changes waiting for the next.
    package static func status(_ keychain: any KeychainHandle) throws -> SyncStatus {
        let state = try requireState(keychain)
        var devices: [SyncStatus.Device]?
        var serverError: String?
        do {
            let connection = try connect(state)
            // What the next exchange would trust (nothing is written; a refusal leaves the
            // state as it is).
            var refreshed = state
            if (try? refreshTrust(connection, state: &refreshed, publish: false)) == nil { refreshed = state }
            devices = try standings(on: connection, state: refreshed)
        } catch let error as SyncError {
            serverError = error.message
        }
        return SyncStatus(
            accountID: state.accountID, deviceID: state.deviceID, devices: devices, serverError: serverError,
            lastSync: state.lastSync, lastError: state.lastError, pendingChanges: try pendingChangeCount(keychain, state: state))
    }

    /// How many writes the next exchange would upload.
    private static func pendingChangeCount(_ keychain: any KeychainHandle, state: SyncState) throws -> Int {
        var local = try readLocal(keychain, known: state.localVersions, mirror: state.mirror)
        return try pendingWrites(&local, keychain: keychain, state: state).count
    }

    // MARK: - The keychain

    /// The keychain's items that may sync, by primary-key digest.
    static func localItems(_ keychain: any KeychainHandle) throws -> [String: SyncedItem] {
        var items: [String: SyncedItem] = [:]
        for itemClass in SyncedItem.classes {
            var request = ItemRequest(itemClass: itemClass)
            request.synchronizable = .only(true)
            request.matchLimit = .all
            request.returns = [.attributes, .data]
            let results: [ItemResult]
            do {
                results = try keychain.search(request)
            } catch let error as KeychainError where error.code == .itemNotFound {
                continue
            } catch {
                throw SyncError(.keychain, "cannot read the keychain's synchronizable items: \(error)")
            }
            for result in results {
                let item = SyncedItem(result)
                guard item.maySync else { continue }
                items[try item.primaryKeyDigest()] = item
            }
        }
        return items
    }

    private static func deleteLocally(_ item: SyncedItem, in keychain: any KeychainHandle) throws {
        do {
            try keychain.delete(item.exactRequest())
        } catch let error as KeychainError where error.code == .itemNotFound {
        } catch {
            throw SyncError(.keychain, "cannot delete a synced item: \(error)")
        }
    }

    /// Up to how many applied records a download looks up one by one for their digests (more:
    /// it reads every synchronizable item again).
    static let storedLookupLimit = 100

    /// `local` with the items of `primaryKeys` as the keychain stored them, each found by its
    /// primary key (an item gone or no longer syncable is left out).
    private static func storedItems(
        _ primaryKeys: [String], of local: [String: SyncedItem], in keychain: any KeychainHandle
    ) throws -> [String: SyncedItem] {
        var items = local
        for primaryKey in primaryKeys {
            guard let item = local[primaryKey] else { continue }
            var request = item.exactRequest()
            request.returns = [.attributes, .data]
            request.matchLimit = .one
            items[primaryKey] = nil
            do {
                guard let result = try keychain.search(request).first else { continue }
                let stored = SyncedItem(result)
                if stored.maySync, try stored.primaryKeyDigest() == primaryKey { items[primaryKey] = stored }
            } catch let error as KeychainError where error.code == .itemNotFound {
            } catch {
                throw SyncError(.keychain, "cannot read a synced item: \(error)")
            }
        }
        return items
    }

    /// Adds new items: in one transaction when the keychain is in this process (all or none;
    /// if that fails, one by one, so the failure is the one item's), else one by one.
    ///
    /// - Returns: the items as stored with their versions, when added in one transaction.
    private static func addLocally(_ items: [SyncedItem], in keychain: any KeychainHandle) throws -> [(version: ItemVersion, item: ItemResult)] {
        if let embedded = keychain as? EmbeddedKeychain,
            let added = try? embedded.keychain.addReturningVersions(contentsOf: items.map { $0.addRequest() }, context: embedded.context)
        {
            return added
        }
        for item in items { try storeLocally(item, replacing: false, in: keychain) }
        return []
    }

    private static func storeLocally(_ item: SyncedItem, replacing: Bool, in keychain: any KeychainHandle) throws {
        do {
            if replacing {
                try keychain.update(item.exactRequest(), changes: item.changes())
            } else {
                _ = try keychain.add(item.addRequest())
            }
        } catch {
            throw SyncError(.keychain, "cannot store a synced item: \(error)")
        }
    }
}
