import Foundation
import KeychainCrypto

/// A device's syncing identity: a P-256 signing key (ECDSA over SHA-256: its device lists) and a
/// P-256 key-agreement key (ECDH: key shares sent to it). The private scalars stay in the
/// keychain's sync state (a ThisDeviceOnly item); the server holds only the public points.
struct DeviceIdentity {
    /// The curve, as OpenSSL names it.
    static let curve = "prime256v1"
    /// Bytes of a private scalar.
    static let scalarLength = 32

    /// The device's identifier.
    let deviceID: UUID
    let signingKey: EVPKey
    let agreementKey: EVPKey

    /// A new identity.
    static func generate() throws -> DeviceIdentity {
        try DeviceIdentity(
            deviceID: UUID(), signingKey: EVPKey.generateEC(group: curve), agreementKey: EVPKey.generateEC(group: curve))
    }

    /// The identity whose private scalars are `signing` and `agreement`.
    init(deviceID: UUID, signing: Data, agreement: Data) throws {
        self.deviceID = deviceID
        signingKey = try signing.withUnsafeBytes { try EVPKey.ec(group: Self.curve, scalar: $0) }
        agreementKey = try agreement.withUnsafeBytes { try EVPKey.ec(group: Self.curve, scalar: $0) }
    }

    private init(deviceID: UUID, signingKey: EVPKey, agreementKey: EVPKey) {
        self.deviceID = deviceID
        self.signingKey = signingKey
        self.agreementKey = agreementKey
    }

    /// The private scalars, for the sync state.
    func scalars() throws -> (signing: Data, agreement: Data) {
        let signing = try signingKey.ecScalar(length: Self.scalarLength).withUnsafeBytes { Data($0) }
        let agreement = try agreementKey.ecScalar(length: Self.scalarLength).withUnsafeBytes { Data($0) }
        return (signing, agreement)
    }

    /// The public points (uncompressed), as the server stores them.
    func publicPoints() throws -> (signing: Data, agreement: Data) {
        (try signingKey.ecPoint(), try agreementKey.ecPoint())
    }

    /// An ECDSA signature of `message`'s SHA-256.
    func sign(_ message: Data) throws -> Data {
        try SyncCrypto.sha256(message).withUnsafeBytes { try signingKey.sign($0, padding: nil) }
    }

    /// Whether `signature` is `point`'s signature of `message` (false for a malformed point).
    static func verify(_ signature: Data, of message: Data, point: Data) -> Bool {
        guard let key = try? point.withUnsafeBytes({ try EVPKey.ec(group: curve, point: $0, scalar: nil) }),
            let digest = try? SyncCrypto.sha256(message)
        else { return false }
        return (try? digest.withUnsafeBytes { digest in try signature.withUnsafeBytes { try key.verify(digest, signature: $0, padding: nil) } }) ?? false
    }
}
