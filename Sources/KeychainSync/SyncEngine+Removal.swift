import Foundation
import KeychainCore

/// Removing a device rolls the account's keys: a new TLK and new class keys, every record sealed
/// again under them (at the next generation, so the other devices fetch it), the old class keys
/// dropped, a new recovery escrow, new vouches for the remaining devices, the new TLK shared
/// with each remaining device only, and a new manifest of the records' new generations signed
/// under the new TLK (the roll checks the current one first, so it cannot make a record the
/// server withholds deleted). The removed device keeps what it could read before; it
/// cannot open anything written after, and a record it writes under the old keys is refused by
/// the others (its parent key is gone).
extension SyncEngine {
    /// What a removal did.
    package struct Removal: Sendable {
        /// The removed device.
        package let device: UUID
        /// The new recovery secret (the old one opens only the retired keys).
        package let recoverySecret: String
        /// Records sealed again under the new keys.
        package let resealed: Int
    }

    /// Removes device `text` (its id, as `status` shows it) from the account and rolls the keys.
    ///
    /// - Throws: `badInput` for an id that is not a device of the account or is this device's;
    ///   `refused` when a record on the server does not open or the records are not the ones the
    ///   account's manifest lists (nothing is changed then);
    ///   `conflict` when other devices kept writing; `notEnabled`, server errors.
    package static func remove(_ keychain: any KeychainHandle, device text: String) throws -> Removal {
        guard let target = UUID(uuidString: text) else {
            throw SyncError(.badInput, "\(text) is not a device id (security sync status lists them)")
        }
        var state = try requireState(keychain)
        guard target != state.deviceID else {
            throw SyncError(.badInput, "a device cannot remove itself: remove it from another trusted device")
        }
        let connection = try connect(state)
        for attempt in 1...uploadAttempts {
            try refreshTrust(connection, state: &state)
            try state.save(to: keychain)
            let known = try connection.execute("SELECT count(*) AS n FROM keychain_sync.device WHERE device_id = $1", [.uuid(target)])
            guard try known.integer(0, "n") == 1 || state.trusted?[target.uuidString.lowercased()] != nil else {
                throw SyncError(.badInput, "\(text) is not a device of this account (security sync status lists them)")
            }
            do {
                return try roll(connection, keychain: keychain, state: &state, removing: target)
            } catch let error as SyncError where error.code == .conflict && attempt < uploadAttempts {
                continue
            }
        }
        throw SyncError(.conflict, "other devices kept writing: nothing was removed")
    }

    /// One attempt at the key roll, in one transaction.
    private static func roll(
        _ connection: PostgresConnection, keychain: any KeychainHandle, state: inout SyncState, removing target: UUID
    ) throws -> Removal {
        let keys = try AccountKeys.generate(accountID: state.accountID)
        let epoch = (state.keyEpoch ?? 1) + 1
        var remaining = state.trusted ?? [:]
        remaining[target.uuidString.lowercased()] = nil
        let members = Dictionary(uniqueKeysWithValues: remaining.compactMap { key, value in UUID(uuidString: key).map { ($0, value) } })
        let secret = try RecoveryBottle.newSecret()
        let (salt, bottle) = try RecoveryBottle.seal(keys.topLevel, accountID: state.accountID, secret: secret)
        var updated = state
        var resealed = 0
        do {
            try roll(connection, keychain: keychain, state: state, to: &updated, keys: keys, epoch: epoch, members: members,
                     bottle: (salt, bottle), removing: target, resealed: &resealed)
        } catch {
            // The keychain may hold the new keys when the commit itself failed.
            try? state.save(to: keychain)
            throw error
        }
        state = updated
        return Removal(device: target, recoverySecret: secret, resealed: resealed)
    }

    /// The roll's transaction.
    private static func roll(
        _ connection: PostgresConnection, keychain: any KeychainHandle, state: SyncState, to updated: inout SyncState,
        keys: AccountKeys, epoch: Int64, members: [UUID: TrustedDevice], bottle: (salt: Data, bottle: Data), removing target: UUID,
        resealed: inout Int
    ) throws {
        let identity = try state.identity()
        let oldSealer = RecordSealer(keys: state.keys)
        let sealer = RecordSealer(keys: keys)
        guard let deletionKey = keys.classKeys[AccountKeys.classA] else { throw SyncError(.keychain, "new keys have no class A key") }
        try connection.transaction {
            // The manifest's row lock, then the account row's, in the order uploads take them:
            // the roll comes after every upload in progress and before the next.
            let manifestRows = try connection.execute("SELECT version, record_count, digest, signer, code FROM keychain_sync.manifest FOR UPDATE")
            let account = try connection.execute("SELECT key_epoch FROM keychain_sync.account FOR UPDATE")
            guard account.count == 1, try account.integer(0, "key_epoch") == state.keyEpoch ?? 1 else {
                throw SyncError(.conflict, "the account's keys rolled meanwhile")
            }
            let rows = try connection.execute(
                "SELECT record_id, parent_key_id, generation, ciphertext, deleted FROM keychain_sync.record ORDER BY record_id FOR UPDATE")
            // The live records before and after the roll (each at its next generation).
            var before: [String: Int64] = [:]
            var after: [String: Int64] = [:]
            for row in 0..<rows.count {
                guard try !rows.boolean(row, "deleted") else { continue }
                let key = try rows.uuid(row, "record_id").uuidString.lowercased()
                let generation = try rows.integer(row, "generation")
                before[key] = generation
                after[key] = generation + 1
            }
            // Signing a new manifest over what the server shows would make a record it withholds
            // now deleted for good: the current manifest must describe exactly these records.
            let previous = try verifiedManifest(manifestRows, describing: before, state: state)
            for row in 0..<rows.count {
                let id = try rows.uuid(row, "record_id")
                let generation = try rows.integer(row, "generation")
                let contents = try oldSealer.open(
                    try rows.bytes(row, "ciphertext") ?? Data(), recordID: id, parent: try rows.uuid(row, "parent_key_id"),
                    generation: generation, deleted: try rows.boolean(row, "deleted"))
                let classKey: AccountKeys.Key
                switch contents {
                case .deleted: classKey = deletionKey
                case .item(let item):
                    guard let key = keys.classKey(forProtection: item.value(.accessible)?.stringValue)?.key else {
                        throw SyncError(.refused, "record \(id) holds an item of no class that syncs")
                    }
                    classKey = key
                }
                let ciphertext = try sealer.seal(contents, recordID: id, generation: generation + 1, classKey: classKey)
                try connection.execute(
                    """
                    UPDATE keychain_sync.record
                    SET parent_key_id = $1, generation = $2, ciphertext = $3, change_seq = nextval('keychain_sync.change_seq')
                    WHERE record_id = $4 AND generation = $5
                    """,
                    [.uuid(classKey.id), .integer(generation + 1), .bytes(ciphertext), .uuid(id), .integer(generation)])
                // This device's mirror follows only records it was up to date with: a later
                // change it has not applied yet still reaches it at the next exchange.
                let key = id.uuidString.lowercased()
                if updated.mirror[key]?.generation == generation { updated.mirror[key]?.generation = generation + 1 }
                resealed += 1
            }
            try connection.execute("DELETE FROM keychain_sync.sync_key")
            for name in [AccountKeys.classA, AccountKeys.classC] {
                guard let key = keys.classKeys[name] else { continue }
                try connection.execute(
                    "INSERT INTO keychain_sync.sync_key (key_id, key_class, parent_key_id, wrapped) VALUES ($1, $2, $3, $4)",
                    [.uuid(key.id), .text(name), .uuid(keys.topLevel.id), .bytes(try keys.wrapClassKey(named: name))])
            }
            try connection.execute(
                "UPDATE keychain_sync.account SET key_epoch = $1, bottle_salt = $2, bottle_cost = $3::integer, bottle = $4",
                [.integer(epoch), .bytes(bottle.salt), .integer(Int64(RecoveryBottle.cost)), .bytes(bottle.bottle)])
            try connection.execute("DELETE FROM keychain_sync.key_share WHERE receiver = $1 OR sender = $1", [.uuid(target)])
            try connection.execute("DELETE FROM keychain_sync.join_request WHERE device_id = $1", [.uuid(target)])
            try connection.execute("DELETE FROM keychain_sync.device_list WHERE signer = $1", [.uuid(target)])
            try connection.execute("DELETE FROM keychain_sync.device WHERE device_id = $1", [.uuid(target)])
            for (id, device) in members {
                try register(id, device, keys: keys, on: connection)
                guard id != state.deviceID else { continue }
                let share = try KeyShare.seal(
                    KeyShare.Contents(epoch: epoch, topLevel: keys.topLevel, members: members, approval: Data()),
                    accountID: state.accountID, sender: identity, receiver: id, receiverAgreement: device.agreement)
                try insertShare(share, sender: state.deviceID, receiver: id, keyID: keys.topLevel.id, on: connection)
            }
            updated.adopt(keys, epoch: epoch)
            updated.trusted = Dictionary(uniqueKeysWithValues: members.map { ($0.key.uuidString.lowercased(), $0.value) })
            try signList(of: updated, on: connection)
            // The records' new generations, in a manifest the remaining devices verify under the
            // new TLK.
            let manifest = try SyncManifest.make(
                version: (previous?.version ?? 0) + 1, records: after, signer: state.deviceID, keys: keys)
            try writeManifest(manifest, replacing: previous?.version, on: connection)
            updated.manifestVersion = manifest.version
            try remember(manifest, in: &updated)
            try connection.execute(
                "SELECT pg_notify($1, $2)", [.text(channel(for: state.accountID)), .text(state.deviceID.uuidString.lowercased())])
            try updated.save(to: keychain)
        }
    }
}
