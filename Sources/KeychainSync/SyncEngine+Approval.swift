import Foundation
import KeychainCore

/// A join by approval: the joining device publishes a request and shows a code; a trusted device
/// given the code approves the request (`approve`), which trusts the new device and sends it the
/// account's TLK in a share it signs and tags with the code; the joining device (`awaitApproval`)
/// checks the tag and the signature, then syncs. See `JoinCode` for what the code binds.
extension SyncEngine {
    /// A join request published and not yet approved.
    package final class PendingJoin {
        /// The code to show (`1234-5678`).
        package let code: String
        /// The joining device's id.
        package let deviceID: UUID
        let conninfo: String
        let connection: PostgresConnection
        let accountID: UUID
        let identity: DeviceIdentity
        let stretched: Data

        init(code: String, conninfo: String, connection: PostgresConnection, accountID: UUID, identity: DeviceIdentity, stretched: Data) {
            self.code = code
            deviceID = identity.deviceID
            self.conninfo = conninfo
            self.connection = connection
            self.accountID = accountID
            self.identity = identity
            self.stretched = stretched
        }
    }

    /// How often a joining device looks for its approval.
    static let approvalPollInterval: TimeInterval = 0.2

    /// Publishes a join request for this keychain: a new device identity and the verifier of a
    /// new code (nothing is stored in the keychain until the approval arrives).
    ///
    /// - Throws: `alreadyEnabled`, `noAccount`, server errors.
    package static func requestJoin(_ keychain: any KeychainHandle, conninfo: String) throws -> PendingJoin {
        guard try SyncState.load(from: keychain) == nil else {
            throw SyncError(.alreadyEnabled, "this keychain already syncs with an account")
        }
        let connection = try PostgresConnection(conninfo)
        try SyncSchema.requireCurrent(on: connection)
        let account = try connection.execute("SELECT account_id FROM keychain_sync.account")
        guard account.count == 1 else {
            throw SyncError(.noAccount, "this server holds no account for this role: use security sync enable")
        }
        let accountID = try account.uuid(0, "account_id")
        let identity = try DeviceIdentity.generate()
        let (signing, agreement) = try identity.publicPoints()
        let code = try JoinCode.newCode()
        let stretched = try JoinCode.stretch(code, accountID: accountID, deviceID: identity.deviceID, signing: signing, agreement: agreement)
        let verifier = try JoinCode.verifier(stretched)
        let signature = try identity.sign(
            JoinCode.requestMessage(accountID: accountID, deviceID: identity.deviceID, signing: signing, agreement: agreement, verifier: verifier))
        try connection.execute(
            """
            INSERT INTO keychain_sync.join_request (device_id, signing_key, agreement_key, verifier, signature)
            VALUES ($1, $2, $3, $4, $5)
            """,
            [.uuid(identity.deviceID), .bytes(signing), .bytes(agreement), .bytes(verifier), .bytes(signature)])
        return PendingJoin(
            code: code, conninfo: conninfo, connection: connection, accountID: accountID, identity: identity, stretched: stretched)
    }

    /// Waits up to `timeout` seconds for a trusted device's approval of `pending`, then stores the
    /// account's keys and runs a first exchange.
    ///
    /// A share is accepted only if it decrypts with this device's key, carries the tag of the
    /// code this device showed (keyed by it, so only a device given the code could make it) and
    /// is signed by the approver the share names; its class keys must authenticate under its TLK.
    ///
    /// - Throws: `notApproved` after `timeout` (the request is withdrawn), `refused` for a share
    ///   that fails a check; in both cases nothing is stored in the keychain.
    package static func awaitApproval(_ pending: PendingJoin, keychain: any KeychainHandle, timeout: TimeInterval) throws -> SyncReport {
        let connection = pending.connection
        let me = pending.identity.deviceID
        let deadline = Date().addingTimeInterval(timeout)
        var state: SyncState?
        do {
            while state == nil {
                let shares = try connection.execute(
                    "SELECT sender, key_id, wrapped, signature FROM keychain_sync.key_share WHERE receiver = $1", [.uuid(me)])
                if shares.count > 0 {
                    state = try acceptApproval(shares, pending: pending)
                } else if Date() >= deadline {
                    throw SyncError(
                        .notApproved,
                        "no trusted device approved this device within \(Int(timeout)) seconds (run security sync approve <code> on one): nothing was joined")
                } else {
                    Thread.sleep(forTimeInterval: approvalPollInterval)
                }
            }
        } catch {
            _ = try? connection.execute("DELETE FROM keychain_sync.join_request WHERE device_id = $1", [.uuid(me)])
            _ = try? connection.execute("DELETE FROM keychain_sync.key_share WHERE receiver = $1", [.uuid(me)])
            throw error
        }
        guard let state else { throw SyncError(.notApproved, "nothing was joined") }
        do {
            try connection.transaction {
                try signList(of: state, on: connection)
                try connection.execute("DELETE FROM keychain_sync.join_request WHERE device_id = $1", [.uuid(me)])
                try connection.execute("DELETE FROM keychain_sync.key_share WHERE receiver = $1", [.uuid(me)])
                try state.save(to: keychain)
            }
        } catch {
            SyncState.remove(from: keychain)
            throw error
        }
        // Where the keychain's other exchanges run: by keychaind, which has just started its
        // background sync for the state saved above, so the first sync is not run twice at once.
        return try DaemonSync.exchange(keychain)
    }

    /// The state an approval gives, once every check passed.
    private static func acceptApproval(_ shares: PostgresRows, pending: PendingJoin) throws -> SyncState {
        guard shares.count == 1 else { throw SyncError(.refused, "refused \(shares.count) key shares for one joining device") }
        let sender = try shares.uuid(0, "sender")
        let keyID = try shares.uuid(0, "key_id")
        let share = KeyShare(wrapped: try shares.bytes(0, "wrapped") ?? Data(), signature: try shares.bytes(0, "signature") ?? Data())
        let contents = try share.open(accountID: pending.accountID, sender: sender, receiver: pending.identity, keyID: keyID)
        guard let approver = contents.members[sender],
            share.isSigned(by: approver.signing, accountID: pending.accountID, sender: sender, receiver: pending.identity.deviceID, keyID: keyID)
        else {
            throw SyncError(.refused, "refused a key share that its sender did not sign: nothing was joined")
        }
        let expected = try JoinCode.approvalTag(
            pending.stretched, accountID: pending.accountID, approver: sender, approverSigning: approver.signing,
            joiner: pending.identity.deviceID, keyID: keyID)
        guard SyncCrypto.equal(contents.approval, expected) else {
            throw SyncError(.refused, "refused a key share that does not carry the approval of this device's code: nothing was joined")
        }
        let keys = try classKeys(on: pending.connection, accountID: pending.accountID, topLevel: contents.topLevel)
        return try SyncState(
            conninfo: pending.conninfo, keys: keys, epoch: contents.epoch, identity: pending.identity,
            trusted: Dictionary(uniqueKeysWithValues: contents.members.map { ($0.key.uuidString.lowercased(), $0.value) }))
    }

    /// Approves the pending join request whose verifier matches `code`: the new device is added
    /// to this device's trusted list, vouched for, and sent the TLK in a share this device signs
    /// and tags with the code.
    ///
    /// - Returns: the approved device's id.
    /// - Throws: `badInput` for a code that is not 8 digits, `noJoinRequest` when no request (or
    ///   more than one) matches: nothing is written then; `notEnabled`, `refused`, server errors.
    package static func approve(_ keychain: any KeychainHandle, code: String) throws -> UUID {
        guard let code = JoinCode.normalized(code) else {
            throw SyncError(.badInput, "a join code is \(JoinCode.digits) digits, as the joining device shows it (1234-5678)")
        }
        var state = try requireState(keychain)
        let connection = try connect(state)
        try refreshTrust(connection, state: &state)
        try state.save(to: keychain)
        let rows = try connection.execute("SELECT device_id, signing_key, agreement_key, verifier, signature FROM keychain_sync.join_request")
        var matches: [(id: UUID, device: TrustedDevice, stretched: Data)] = []
        for row in 0..<rows.count {
            let id = try rows.uuid(row, "device_id")
            let device = TrustedDevice(signing: try rows.bytes(row, "signing_key") ?? Data(), agreement: try rows.bytes(row, "agreement_key") ?? Data())
            let verifier = try rows.bytes(row, "verifier") ?? Data()
            let request = JoinCode.requestMessage(
                accountID: state.accountID, deviceID: id, signing: device.signing, agreement: device.agreement, verifier: verifier)
            guard DeviceIdentity.verify(try rows.bytes(row, "signature") ?? Data(), of: request, point: device.signing) else { continue }
            let stretched = try JoinCode.stretch(code, accountID: state.accountID, deviceID: id, signing: device.signing, agreement: device.agreement)
            if SyncCrypto.equal(try JoinCode.verifier(stretched), verifier) { matches.append((id, device, stretched)) }
        }
        guard matches.count == 1, let match = matches.first, state.trusted?[match.id.uuidString.lowercased()] == nil else {
            throw SyncError(.noJoinRequest, "no pending join request matches this code: nothing was approved")
        }
        let identity = try state.identity()
        let keys = state.keys
        state.trusted?[match.id.uuidString.lowercased()] = match.device
        let (signing, _) = try identity.publicPoints()
        let contents = KeyShare.Contents(
            epoch: state.keyEpoch ?? 1, topLevel: keys.topLevel,
            members: Dictionary(uniqueKeysWithValues: (state.trusted ?? [:]).compactMap { key, value in UUID(uuidString: key).map { ($0, value) } }),
            approval: try JoinCode.approvalTag(
                match.stretched, accountID: state.accountID, approver: state.deviceID, approverSigning: signing, joiner: match.id,
                keyID: keys.topLevel.id))
        let share = try KeyShare.seal(contents, accountID: state.accountID, sender: identity, receiver: match.id, receiverAgreement: match.device.agreement)
        try connection.transaction {
            // A key roll meanwhile would leave the new device a retired TLK.
            let account = try connection.execute("SELECT key_epoch FROM keychain_sync.account FOR SHARE")
            guard account.count == 1, try account.integer(0, "key_epoch") == state.keyEpoch ?? 1 else {
                throw SyncError(.conflict, "the account's keys rolled meanwhile: approve again")
            }
            try register(match.id, match.device, keys: keys, on: connection)
            try signList(of: state, on: connection)
            try insertShare(share, sender: state.deviceID, receiver: match.id, keyID: keys.topLevel.id, on: connection)
            try connection.execute("DELETE FROM keychain_sync.join_request WHERE device_id = $1", [.uuid(match.id)])
            try state.save(to: keychain)
        }
        return match.id
    }

    /// Writes a key share (replacing one to the same device of the same TLK).
    static func insertShare(_ share: KeyShare, sender: UUID, receiver: UUID, keyID: UUID, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO keychain_sync.key_share (receiver, sender, key_id, wrapped, signature) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (owner, receiver, key_id) DO UPDATE SET sender = excluded.sender, wrapped = excluded.wrapped, signature = excluded.signature
            """,
            [.uuid(receiver), .uuid(sender), .uuid(keyID), .bytes(share.wrapped), .bytes(share.signature)])
    }
}
