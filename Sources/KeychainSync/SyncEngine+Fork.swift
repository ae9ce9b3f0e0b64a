import Foundation

/// Fork detection. The manifest proves that what the server shows is a state the account's
/// devices wrote, not that it is the newest one: a server can keep one device on an older but
/// consistent state while the others move on, or show two groups of devices branches of their
/// own. So each device publishes a checkpoint (`SyncCheckpoint`): the newest manifest it has
/// verified or written, signed with its identity key. At each download, in the same snapshot as
/// the manifest, a device reads the checkpoints of the devices it trusts and refuses the download
/// (a fork) when one
///
/// - claims a newer manifest version than the server shows it;
/// - claims a version this device saw, with another fingerprint (the two devices saw different
///   states under the same version: branches);
/// - is older than the checkpoint of the same device it saw before (a replay), or is gone while
///   that device is still trusted (withheld).
///
/// A checkpoint that does not verify under the point this device holds for its signer is
/// refused too. What the server can still do: withhold every checkpoint written on the other
/// branch from the start (it shows each device only checkpoints consistent with its branch), so
/// the fork is detected once any checkpoint signed on the other branch reaches a device, not
/// before; and it can stop serving a device.
extension SyncEngine {
    /// How many manifest fingerprints a device keeps (the latest versions it saw).
    static let rememberedManifests = 256

    /// Records that this device verified or wrote `manifest`.
    static func remember(_ manifest: SyncManifest, in state: inout SyncState) throws {
        var seen = state.seenManifests ?? [:]
        seen[String(manifest.version)] = SyncCrypto.hex(try SyncCheckpoint.fingerprint(of: manifest, accountID: state.accountID))
        if seen.count > rememberedManifests {
            let kept = Set(seen.keys.compactMap(Int64.init).sorted().suffix(rememberedManifests).map { String($0) })
            seen = seen.filter { kept.contains($0.key) }
        }
        state.seenManifests = seen
    }

    /// The statement that reads the account's checkpoints (run in the download's snapshot).
    static let checkpointQuery = "SELECT device_id, version, fingerprint, signature FROM keychain_sync.checkpoint"

    /// Checks the checkpoints of the devices this device trusts (`rows`, read in the same
    /// snapshot as `manifest`, the manifest the server shows) and keeps the newest version seen
    /// from each.
    ///
    /// - Throws: `SyncError.refused` naming the device and what it signed, when the server is
    ///   keeping this device on a fork (or replays, withholds or made up a checkpoint).
    static func checkCheckpoints(_ rows: PostgresRows, against manifest: SyncManifest?, state: inout SyncState) throws {
        let shown = manifest?.version ?? 0
        let trusted = state.trusted ?? [:]
        let seen = state.checkpointsSeen ?? [:]
        var newest: [String: Int64] = [:]
        for row in 0..<rows.count {
            let device = try rows.uuid(row, "device_id")
            let key = device.uuidString.lowercased()
            guard device != state.deviceID, let signer = trusted[key] else { continue }
            let checkpoint = SyncCheckpoint(
                device: device, version: try rows.integer(row, "version"), fingerprint: try rows.bytes(row, "fingerprint") ?? Data(),
                signature: try rows.bytes(row, "signature") ?? Data())
            guard checkpoint.isSigned(by: signer.signing, accountID: state.accountID) else {
                throw SyncError(.refused, "the checkpoint of device \(key) is not signed by that device (made up or changed by the server)")
            }
            if let before = seen[key], checkpoint.version < before {
                throw fork("device \(key)'s checkpoint went back from version \(before) to \(checkpoint.version) (the server replays an old one)")
            }
            if checkpoint.version > shown {
                throw fork(
                    "device \(key) signed that it has seen version \(checkpoint.version) of the account's manifest; "
                        + "the server shows this device version \(shown)")
            }
            if let mine = state.seenManifests?[String(checkpoint.version)], mine != SyncCrypto.hex(checkpoint.fingerprint) {
                throw fork("device \(key) saw another version \(checkpoint.version) of the account's manifest than this device did")
            }
            newest[key] = checkpoint.version
        }
        for (key, version) in seen.sorted(by: { $0.key < $1.key }) where trusted[key] != nil && newest[key] == nil {
            throw fork("the server withheld the checkpoint of device \(key) (this device saw its version \(version))")
        }
        state.checkpointsSeen = newest.isEmpty ? nil : newest
    }

    /// Publishes this device's checkpoint of the newest manifest it has verified or written,
    /// when it is newer than the last one it published. The server's row only moves forward, so
    /// two exchanges of this device at once (keychaind's and `sync now`) cannot make it go back.
    static func publishCheckpoint(_ connection: PostgresConnection, state: inout SyncState) throws {
        guard let version = state.manifestVersion, version > (state.publishedCheckpoint ?? 0),
            let text = state.seenManifests?[String(version)], let fingerprint = SyncCrypto.bytes(hex: text)
        else { return }
        let checkpoint = try SyncCheckpoint.make(version: version, fingerprint: fingerprint, accountID: state.accountID, identity: state.identity())
        try connection.execute(
            """
            INSERT INTO keychain_sync.checkpoint (device_id, version, fingerprint, signature) VALUES ($1, $2, $3, $4)
            ON CONFLICT (owner, device_id) DO UPDATE
            SET version = excluded.version, fingerprint = excluded.fingerprint, signature = excluded.signature
            WHERE keychain_sync.checkpoint.version < excluded.version
            """,
            [.uuid(checkpoint.device), .integer(checkpoint.version), .bytes(checkpoint.fingerprint), .bytes(checkpoint.signature)])
        state.publishedCheckpoint = version
    }

    private static func fork(_ what: String) -> SyncError {
        SyncError(.refused, "the server is keeping this device on a fork of the account: \(what)")
    }
}
