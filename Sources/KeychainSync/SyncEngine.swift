import Foundation
import KeychainCore

/// Sync of a keychain's synchronizable items with an account on a PostgreSQL server.
///
/// Local changes are found by comparing the keychain's synchronizable items with the mirror (the
/// state of each record as last synced, kept in the sync state): an item whose primary key the
/// mirror does not know is an addition, one whose content digest differs a change, a mirror entry
/// whose item is gone a deletion. So the engine needs no hook: every way an item can change
/// (any SecItem call, any process, the daemon, a restore) is seen at the next exchange.
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
        let state = try SyncState(
            conninfo: conninfo, keys: keys, epoch: 1, identity: identity,
            trusted: [identity.deviceID.uuidString.lowercased(): TrustedDevice(signing: signing, agreement: agreement)])
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
    /// keychain's.
    ///
    /// - Returns: what it did; records the server changed or replayed are refused (listed in the
    ///   report, nothing applied from them) and then nothing is uploaded.
    /// - Throws: `notEnabled`, `conflict` (lost the race `uploadAttempts` times), `refused` (the
    ///   server's account is not this keychain's), server and keychain errors.
    package static func syncNow(_ keychain: any KeychainHandle) throws -> SyncReport {
        var state = try requireState(keychain)
        let connection = try connect(state)
        var report = SyncReport()
        defer {
            state.lastSync = Date()
            try? state.save(to: keychain)
        }
        for attempt in 1...uploadAttempts {
            try refreshTrust(connection, state: &state)
            let losers = try download(connection, keychain: keychain, state: &state, report: &report)
            guard report.refused.isEmpty else { return report }
            do {
                try upload(connection, keychain: keychain, state: &state, report: &report, serverDeletions: losers)
                return report
            } catch let error as SyncError where error.code == .conflict && attempt < uploadAttempts {
                continue
            }
        }
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

    /// Fetches the records changed since the last exchange and applies them.
    ///
    /// - Returns: records that lost a primary-key collision and are to be deleted from the
    ///   server, with the generation the deletion expects.
    private static func download(
        _ connection: PostgresConnection, keychain: any KeychainHandle, state: inout SyncState, report: inout SyncReport
    ) throws -> [UUID: Int64] {
        let rows = try connection.execute(
            """
            SELECT record_id, parent_key_id, generation, ciphertext, deleted, change_seq FROM keychain_sync.record
            WHERE change_seq > $1 ORDER BY change_seq
            """,
            [.integer(state.lastSequence)])
        let keys = state.keys
        let sealer = RecordSealer(keys: keys)
        var deletions: [String] = []
        var changes: [(key: String, generation: Int64, item: SyncedItem)] = []
        var resealed: [(key: String, generation: Int64)] = []
        var lastSequence = state.lastSequence
        for row in 0..<rows.count {
            do {
                let id = try rows.uuid(row, "record_id")
                let key = id.uuidString.lowercased()
                let generation = try rows.integer(row, "generation")
                let parent = try rows.uuid(row, "parent_key_id")
                let deleted = try rows.boolean(row, "deleted")
                lastSequence = max(lastSequence, try rows.integer(row, "change_seq"))
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
        guard report.refused.isEmpty else { return [:] }

        for (key, generation) in resealed { state.mirror[key]?.generation = generation }
        var local = try localItems(keychain)
        for key in deletions {
            guard let entry = state.mirror.removeValue(forKey: key) else { continue }
            if let item = local.removeValue(forKey: entry.primaryKey) {
                try deleteLocally(item, in: keychain)
            }
            report.appliedDeletions += 1
        }
        var losers: [UUID: Int64] = [:]
        var applied: [String] = []
        for change in changes {
            let primaryKey = try change.item.primaryKeyDigest()
            if let entry = state.mirror[change.key], entry.primaryKey != primaryKey,
                let previous = local.removeValue(forKey: entry.primaryKey)
            {
                try deleteLocally(previous, in: keychain)
            }
            if let (otherKey, other) = state.mirror.first(where: { $0.key != change.key && $0.value.primaryKey == primaryKey }) {
                if change.key < otherKey {
                    UUID(uuidString: otherKey).map { losers[$0] = other.generation }
                    state.mirror[otherKey] = nil
                } else {
                    UUID(uuidString: change.key).map { losers[$0] = change.generation }
                    continue
                }
            }
            try storeLocally(change.item, replacing: local[primaryKey] != nil, in: keychain)
            local[primaryKey] = change.item
            state.mirror[change.key] = SyncState.MirrorEntry(
                primaryKey: primaryKey, content: "", generation: change.generation, record: try change.item.contentDigest())
            applied.append(change.key)
            report.applied += 1
        }
        // The digest of what the keychain stored (it may normalise what it was given), so the
        // next comparison does not take an applied record for a local change.
        if !applied.isEmpty {
            let stored = try localItems(keychain)
            for key in applied {
                guard let entry = state.mirror[key] else { continue }
                state.mirror[key]?.content = try stored[entry.primaryKey]?.contentDigest() ?? ""
            }
        }
        state.lastSequence = lastSequence
        return losers
    }

    /// One upload write.
    private enum Write {
        case add(SyncedItem, primaryKey: String)
        case change(key: String, expected: Int64, SyncedItem, primaryKey: String)
        case delete(key: String, expected: Int64)
    }

    /// Uploads the differences between the keychain and the mirror in one transaction.
    ///
    /// - Throws: `SyncError.conflict` when a record changed on the server meanwhile (nothing is
    ///   written, the mirror is unchanged).
    private static func upload(
        _ connection: PostgresConnection, keychain: any KeychainHandle, state: inout SyncState, report: inout SyncReport,
        serverDeletions: [UUID: Int64]
    ) throws {
        let writes = try pendingWrites(keychain, state: state)
            + serverDeletions.map { Write.delete(key: $0.key.uuidString.lowercased(), expected: $0.value) }
        guard !writes.isEmpty else { return }
        let keys = state.keys
        let sealer = RecordSealer(keys: keys)
        guard let deletionKey = keys.classKeys[AccountKeys.classA] else { throw SyncError(.keychain, "the sync state has no class keys") }
        var mirror = state.mirror
        var counts = (uploaded: 0, deleted: 0)
        try connection.transaction {
            // A key roll takes this row's lock: nothing is written under keys it retired.
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
                    let digest = try item.contentDigest()
                    mirror[id.uuidString.lowercased()] = SyncState.MirrorEntry(
                        primaryKey: primaryKey, content: digest, generation: 1, record: digest)
                    counts.uploaded += 1
                case .change(let key, let expected, let item, let primaryKey):
                    guard let classKey = keys.classKey(forProtection: item.value(.accessible)?.stringValue)?.key,
                        let id = UUID(uuidString: key)
                    else { continue }
                    try swap(connection, id: id, expected: expected, parent: classKey.id, deleted: false,
                             ciphertext: try sealer.seal(.item(item), recordID: id, generation: expected + 1, classKey: classKey))
                    let digest = try item.contentDigest()
                    mirror[key] = SyncState.MirrorEntry(primaryKey: primaryKey, content: digest, generation: expected + 1, record: digest)
                    counts.uploaded += 1
                case .delete(let key, let expected):
                    guard let id = UUID(uuidString: key) else { continue }
                    try swap(connection, id: id, expected: expected, parent: deletionKey.id, deleted: true,
                             ciphertext: try sealer.seal(.deleted, recordID: id, generation: expected + 1, classKey: deletionKey))
                    mirror[key] = nil
                    counts.deleted += 1
                }
            }
        }
        state.mirror = mirror
        report.uploaded += counts.uploaded
        report.uploadedDeletions += counts.deleted
    }

    /// Replaces a record if its generation is still `expected`.
    private static func swap(
        _ connection: PostgresConnection, id: UUID, expected: Int64, parent: UUID, deleted: Bool, ciphertext: Data
    ) throws {
        let updated = try connection.execute(
            """
            UPDATE keychain_sync.record
            SET parent_key_id = $1, generation = $2, ciphertext = $3, deleted = $4, change_seq = nextval('keychain_sync.change_seq')
            WHERE record_id = $5 AND generation = $6
            """,
            [.uuid(parent), .integer(expected + 1), .bytes(ciphertext), .boolean(deleted), .uuid(id), .integer(expected)])
        guard updated.affected == 1 else { throw SyncError(.conflict, "record \(id) changed on the server meanwhile") }
    }

    /// The writes that bring the server to the keychain's state.
    private static func pendingWrites(_ keychain: any KeychainHandle, state: SyncState) throws -> [Write] {
        let local = try localItems(keychain)
        var recordByPrimaryKey: [String: String] = [:]
        for (key, entry) in state.mirror { recordByPrimaryKey[entry.primaryKey] = key }
        var writes: [Write] = []
        for (primaryKey, item) in local.sorted(by: { $0.key < $1.key }) {
            if let key = recordByPrimaryKey[primaryKey], let entry = state.mirror[key] {
                if try item.contentDigest() != entry.content {
                    writes.append(.change(key: key, expected: entry.generation, item, primaryKey: primaryKey))
                }
            } else {
                writes.append(.add(item, primaryKey: primaryKey))
            }
        }
        for (key, entry) in state.mirror.sorted(by: { $0.key < $1.key }) where local[entry.primaryKey] == nil {
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
            lastSync: state.lastSync, pendingChanges: try pendingWrites(keychain, state: state).count)
    }

    // MARK: - The keychain

    /// The keychain's items that may sync, by primary-key digest.
    private static func localItems(_ keychain: any KeychainHandle) throws -> [String: SyncedItem] {
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
