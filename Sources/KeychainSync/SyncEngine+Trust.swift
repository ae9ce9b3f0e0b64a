import Foundation
import KeychainCore

/// Trust between devices. Each device keeps, in its sync state, the devices it trusts with the
/// public points it verified, and signs the list of their ids under the current TLK
/// (`device_list`). At each exchange it first:
///
/// 1. takes a key share addressed to it of a later key epoch, if a device it trusts signed it:
///    the new TLK, and the sender's trusted devices as its own (how a key roll reaches the
///    remaining devices); a share no trusted device signed is refused;
/// 2. refuses to go on if the account's key epoch is above its own and no such share came (it
///    was removed);
/// 3. reads the lists of the devices it trusts signed under its TLK: one that does not verify
///    under the point it holds is refused, as is one naming a device no holder of the TLK
///    vouched for; a device a holder of the TLK vouched for (approved by another device, or
///    joined with the recovery secret) is trusted;
/// 4. signs its own list again when it changed.
extension SyncEngine {
    /// A device row with its list, as the server returns them (nothing checked yet).
    struct DeviceRow {
        let id: UUID
        let device: TrustedDevice
        let vouch: Data
        /// The TLK its list was signed under (nil for a list signed before key ids were kept).
        let listKeyID: UUID?
        let listMembers: [UUID]?
        let listSignature: Data?
    }

    /// Every device row of the account with its list.
    static func deviceRows(on connection: PostgresConnection) throws -> [DeviceRow] {
        let rows = try connection.execute(
            """
            SELECT d.device_id, d.signing_key, d.agreement_key, d.vouch, l.devices, l.signature, l.key_id
            FROM keychain_sync.device d LEFT JOIN keychain_sync.device_list l ON l.owner = d.owner AND l.signer = d.device_id
            ORDER BY d.device_id
            """)
        return try (0..<rows.count).map { row in
            var members: [UUID]?
            if let list = try rows.bytes(row, "devices") {
                guard list.count % 16 == 0 else { throw SyncError(.refused, "the server sent a malformed device list") }
                members = stride(from: 0, to: list.count, by: 16).map { offset in
                    list.dropFirst(offset).prefix(16).withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
                }
            }
            return DeviceRow(
                id: try rows.uuid(row, "device_id"),
                device: TrustedDevice(signing: try rows.bytes(row, "signing_key") ?? Data(), agreement: try rows.bytes(row, "agreement_key") ?? Data()),
                vouch: try rows.bytes(row, "vouch") ?? Data(),
                listKeyID: try rows.text(row, "key_id").map { _ in try rows.uuid(row, "key_id") },
                listMembers: members, listSignature: try rows.bytes(row, "signature"))
        }
    }

    /// Whether a holder of `keys`' TLK vouched for `row`'s points.
    static func isVouched(_ row: DeviceRow, keys: AccountKeys) throws -> Bool {
        SyncCrypto.equal(row.vouch, try keys.vouch(deviceID: row.id, signing: row.device.signing, agreement: row.device.agreement))
    }

    /// The devices a holder of `keys`' TLK vouched for, by id.
    static func vouchedDevices(on connection: PostgresConnection, keys: AccountKeys) throws -> [String: TrustedDevice] {
        var devices: [String: TrustedDevice] = [:]
        for row in try deviceRows(on: connection) where try isVouched(row, keys: keys) {
            devices[row.id.uuidString.lowercased()] = row.device
        }
        return devices
    }

    /// Writes this device's list of the devices it trusts, signed under its TLK.
    static func signList(of state: SyncState, on connection: PostgresConnection) throws {
        let members = (state.trusted ?? [:]).keys.compactMap(UUID.init(uuidString:)).sorted { $0.uuidString < $1.uuidString }
        var list = Data()
        for device in members { withUnsafeBytes(of: device.uuid) { list.append(contentsOf: $0) } }
        let signature = try state.identity().sign(state.keys.deviceListMessage(signer: state.deviceID, devices: members))
        try connection.execute(
            """
            INSERT INTO keychain_sync.device_list (signer, devices, signature, key_id) VALUES ($1, $2, $3, $4)
            ON CONFLICT (owner, signer) DO UPDATE SET devices = excluded.devices, signature = excluded.signature, key_id = excluded.key_id
            """,
            [.uuid(state.deviceID), .bytes(list), .bytes(signature), .uuid(state.topLevelID)])
    }

    /// Brings the state's keys and trusted devices up to date from what trusted devices signed
    /// (the steps in this extension's description). With `publish` false nothing is written to
    /// the server (`status`).
    ///
    /// - Throws: `SyncError.refused` for a share or list no trusted device signed, or when the
    ///   keys rolled without this device (the state is then unchanged).
    static func refreshTrust(_ connection: PostgresConnection, state: inout SyncState, publish: Bool = true) throws {
        var updated = state
        let identity = try updated.identity()
        let me = updated.deviceID.uuidString.lowercased()
        if updated.trusted == nil {
            var trusted = try vouchedDevices(on: connection, keys: updated.keys)
            let (signing, agreement) = try identity.publicPoints()
            trusted[me] = TrustedDevice(signing: signing, agreement: agreement)
            updated.trusted = trusted
        }

        // 1. A later TLK from a device this one trusts.
        let shares = try connection.execute(
            "SELECT sender, key_id, wrapped, signature FROM keychain_sync.key_share WHERE receiver = $1", [.uuid(updated.deviceID)])
        var newest: KeyShare.Contents?
        for row in 0..<shares.count {
            let keyID = try shares.uuid(row, "key_id")
            guard keyID != updated.topLevelID else { continue }
            let sender = try shares.uuid(row, "sender")
            let share = KeyShare(wrapped: try shares.bytes(row, "wrapped") ?? Data(), signature: try shares.bytes(row, "signature") ?? Data())
            let contents = try share.open(accountID: updated.accountID, sender: sender, receiver: identity, keyID: keyID)
            // A share of an epoch this device has reached is spent (or replayed): ignored.
            guard contents.epoch > updated.keyEpoch ?? 1 else { continue }
            guard let signer = updated.trusted?[sender.uuidString.lowercased()],
                share.isSigned(by: signer.signing, accountID: updated.accountID, sender: sender, receiver: updated.deviceID, keyID: keyID)
            else {
                throw SyncError(.refused, "refused a key share for this device that no device it trusts signed (sender \(sender.uuidString.lowercased()))")
            }
            if contents.epoch > newest?.epoch ?? 0 { newest = contents }
        }
        if let newest {
            updated.adopt(
                try classKeys(on: connection, accountID: updated.accountID, topLevel: newest.topLevel), epoch: newest.epoch)
            updated.trusted = Dictionary(uniqueKeysWithValues: newest.members.map { ($0.key.uuidString.lowercased(), $0.value) })
        }

        // 2. Keys rolled without this device.
        let account = try connection.execute("SELECT key_epoch FROM keychain_sync.account")
        let epoch = try account.integer(0, "key_epoch")
        guard epoch <= updated.keyEpoch ?? 1 else {
            throw SyncError(
                .removed,
                "the account's keys rolled (epoch \(epoch)) and no device this one trusts shared them with it: it was removed from the account")
        }

        // 3. Devices added by the trusted devices' lists.
        let rows = try deviceRows(on: connection)
        let keys = updated.keys
        for row in rows where row.id != updated.deviceID {
            guard let signer = updated.trusted?[row.id.uuidString.lowercased()], let members = row.listMembers,
                let signature = row.listSignature, row.listKeyID == updated.topLevelID
            else { continue }
            guard DeviceIdentity.verify(signature, of: keys.deviceListMessage(signer: row.id, devices: members), point: signer.signing) else {
                throw SyncError(.refused, "refused the device list of device \(row.id.uuidString.lowercased()): that device did not sign it")
            }
            for member in members where updated.trusted?[member.uuidString.lowercased()] == nil {
                guard let added = rows.first(where: { $0.id == member }), try isVouched(added, keys: keys) else {
                    throw SyncError(
                        .refused,
                        "refused the device list of device \(row.id.uuidString.lowercased()): it names a device no holder of the account's keys vouched for")
                }
                updated.trusted?[member.uuidString.lowercased()] = added.device
            }
        }

        // A device a holder of the current TLK vouched for (an approval, or a join with the
        // recovery secret) is trusted too: the server cannot make a vouch, nor can a removed
        // device, which lacks the TLK.
        for row in rows where updated.trusted?[row.id.uuidString.lowercased()] == nil {
            if try isVouched(row, keys: keys) { updated.trusted?[row.id.uuidString.lowercased()] = row.device }
        }

        // 4. This device's own list.
        if publish {
            let own = rows.first { $0.id == updated.deviceID }
            let trustedIDs = Set((updated.trusted ?? [:]).keys.compactMap(UUID.init(uuidString:)))
            if own?.listKeyID != updated.topLevelID || Set(own?.listMembers ?? []) != trustedIDs {
                try signList(of: updated, on: connection)
            }
        }
        state = updated
    }

    /// Where each device of the account stands for this device, and the pending join requests.
    static func standings(on connection: PostgresConnection, state: SyncState) throws -> [SyncStatus.Device] {
        let keys = state.keys
        var devices = try deviceRows(on: connection).map { row in
            var trusted = try state.trusted?[row.id.uuidString.lowercased()] == row.device && isVouched(row, keys: keys)
            if trusted, let members = row.listMembers, let signature = row.listSignature, row.listKeyID == state.topLevelID {
                trusted = DeviceIdentity.verify(signature, of: keys.deviceListMessage(signer: row.id, devices: members), point: row.device.signing)
            }
            return SyncStatus.Device(id: row.id, standing: trusted ? .trusted : .notTrusted)
        }
        let pending = try connection.execute("SELECT device_id FROM keychain_sync.join_request ORDER BY device_id")
        for row in 0..<pending.count {
            devices.append(SyncStatus.Device(id: try pending.uuid(row, "device_id"), standing: .pending))
        }
        return devices
    }
}
