import Foundation

/// A device's signed claim of the newest state of the account it has seen: the version of the
/// account's manifest it last verified or wrote and that manifest's fingerprint, signed (ECDSA)
/// with the device's identity key. One row per device (table `checkpoint`), replaced by the
/// device when it has seen a newer manifest.
///
/// The server cannot make or change a checkpoint (it has no device's private key), so a device
/// that reads another trusted device's checkpoint learns what that device saw. A server that
/// keeps one device on an older, internally consistent state (a **fork**: it withholds the
/// manifests other devices wrote, or shows each group of devices a branch of its own) is found
/// out as soon as a checkpoint signed on the other branch reaches a device: one claiming a newer
/// manifest than the server shows it, or the same version with another fingerprint, or one
/// older than the same device's checkpoint seen before (a replay).
struct SyncCheckpoint: Equatable {
    /// The device that signed it.
    let device: UUID
    /// The manifest version it claims to have seen.
    let version: Int64
    /// The fingerprint of that manifest (`SyncCheckpoint.fingerprint(of:)`).
    let fingerprint: Data
    /// The device's ECDSA signature of the fields above and the account id.
    let signature: Data

    /// The checkpoint `identity` signs for the manifest of `version` with `fingerprint`, in
    /// account `accountID`.
    static func make(version: Int64, fingerprint: Data, accountID: UUID, identity: DeviceIdentity) throws -> SyncCheckpoint {
        let signature = try identity.sign(message(accountID: accountID, device: identity.deviceID, version: version, fingerprint: fingerprint))
        return SyncCheckpoint(device: identity.deviceID, version: version, fingerprint: fingerprint, signature: signature)
    }

    /// Whether the device whose signing point is `point` signed it, in account `accountID`.
    func isSigned(by point: Data, accountID: UUID) -> Bool {
        DeviceIdentity.verify(
            signature, of: Self.message(accountID: accountID, device: device, version: version, fingerprint: fingerprint), point: point)
    }

    /// SHA-256 over every field of `manifest` (its authentication code included) and the account
    /// id: two manifests with the same fingerprint are the same state of the account.
    static func fingerprint(of manifest: SyncManifest, accountID: UUID) throws -> Data {
        var message = AssociatedData("swift-keychain sync manifest fingerprint v1")
        message.append(accountID)
        message.append(manifest.version)
        message.append(manifest.count)
        message.append(manifest.digest)
        message.append(manifest.signer)
        message.append(manifest.code)
        return try SyncCrypto.sha256(message.bytes)
    }

    private static func message(accountID: UUID, device: UUID, version: Int64, fingerprint: Data) -> Data {
        var message = AssociatedData("swift-keychain sync checkpoint v1")
        message.append(accountID)
        message.append(device)
        message.append(version)
        message.append(fingerprint)
        return message.bytes
    }
}
