import Foundation
import KeychainCrypto

/// The account's TLK sent by one device (the sender) to another (the receiver): encrypted to the
/// receiver's key-agreement point (ECDH with a fresh ephemeral P-256 key, HKDF-SHA256 of the
/// shared secret and both points, AES-256-GCM bound to the account, both devices and the TLK's
/// id) and signed by the sender's signing key over the same and the ciphertext.
///
/// Its contents also say the key epoch, the devices the sender trusts under that TLK (ids and
/// points: the receiver trusts the same set), and, for a device joining by approval, the tag
/// only a holder of the join code can make. The server can store a share but not read, change
/// or forge one: a receiver accepts a share only from a device it trusts already, or, joining,
/// with the tag of the code it showed.
struct KeyShare {
    /// What a share carries.
    struct Contents {
        /// The key epoch of `topLevel` (a share of an epoch not above the receiver's is a replay).
        var epoch: Int64
        var topLevel: AccountKeys.Key
        /// The devices the sender trusts under `topLevel`, the receiver among them.
        var members: [UUID: TrustedDevice]
        /// For a joining device: the approval tag (`JoinCode.approvalTag`); otherwise empty.
        var approval: Data
    }

    /// Bytes of an uncompressed P-256 point (the ephemeral key at the start of `wrapped`).
    static let pointLength = 65

    /// The ephemeral point followed by the AES-GCM box of the contents.
    let wrapped: Data
    /// The sender's ECDSA signature of `signedMessage`.
    let signature: Data

    /// A share of `contents` from `sender` to device `receiver`, whose agreement point is
    /// `receiverAgreement`.
    static func seal(
        _ contents: Contents, accountID: UUID, sender: DeviceIdentity, receiver: UUID, receiverAgreement: Data
    ) throws -> KeyShare {
        let ephemeral = try EVPKey.generateEC(group: DeviceIdentity.curve)
        let ephemeralPoint = try ephemeral.ecPoint()
        let key = try boxKey(
            ephemeral.deriveSharedSecret(with: publicKey(receiverAgreement)), ephemeral: ephemeralPoint, receiver: receiverAgreement)
        var plaintext = AssociatedData("swift-keychain sync key share contents v1")
        plaintext.append(contents.epoch)
        plaintext.append(contents.topLevel.id)
        plaintext.append(contents.topLevel.bytes)
        plaintext.append(contents.approval)
        plaintext.append(Int64(contents.members.count))
        for (id, device) in contents.members.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            plaintext.append(id)
            plaintext.append(device.signing)
            plaintext.append(device.agreement)
        }
        let aad = boxAAD(accountID, sender.deviceID, receiver, contents.topLevel.id)
        let wrapped = ephemeralPoint + (try SyncCrypto.seal(plaintext.bytes, key: key, aad: aad))
        let signature = try sender.sign(signedMessage(accountID, sender.deviceID, receiver, contents.topLevel.id, wrapped))
        return KeyShare(wrapped: wrapped, signature: signature)
    }

    /// Whether `signing` (the sender's point) signed this share.
    func isSigned(by signing: Data, accountID: UUID, sender: UUID, receiver: UUID, keyID: UUID) -> Bool {
        DeviceIdentity.verify(signature, of: Self.signedMessage(accountID, sender, receiver, keyID, wrapped), point: signing)
    }

    /// The contents, decrypted with `receiver`'s agreement key (the signature is checked
    /// separately, against a point the receiver trusts).
    ///
    /// - Throws: `SyncError.refused` when it does not decrypt or is malformed, or names another
    ///   TLK than `keyID` or leaves the receiver out.
    func open(accountID: UUID, sender: UUID, receiver: DeviceIdentity, keyID: UUID) throws -> Contents {
        guard wrapped.count > Self.pointLength else { throw SyncError(.refused, "a key share is malformed") }
        let ephemeralPoint = Data(wrapped.prefix(Self.pointLength))
        let receiverPoint = try receiver.publicPoints().agreement
        let plaintext: Data
        do {
            let key = try Self.boxKey(
                receiver.agreementKey.deriveSharedSecret(with: Self.publicKey(ephemeralPoint)), ephemeral: ephemeralPoint,
                receiver: receiverPoint)
            plaintext = try SyncCrypto.open(
                Data(wrapped.dropFirst(Self.pointLength)), key: key, aad: Self.boxAAD(accountID, sender, receiver.deviceID, keyID))
        } catch {
            throw SyncError(.refused, "a key share for this device does not decrypt")
        }
        var reader = try FieldReader(plaintext, label: "swift-keychain sync key share contents v1")
        let epoch = try reader.integer()
        let topLevel = AccountKeys.Key(id: try reader.uuid(), bytes: try reader.bytes())
        let approval = try reader.bytes()
        let count = try reader.integer()
        guard (1...1024).contains(count) else { throw SyncError(.refused, "a key share lists no devices") }
        var members: [UUID: TrustedDevice] = [:]
        for _ in 0..<count {
            let id = try reader.uuid()
            members[id] = TrustedDevice(signing: try reader.bytes(), agreement: try reader.bytes())
        }
        guard reader.isAtEnd, topLevel.id == keyID, topLevel.bytes.count == SyncCrypto.keyLength,
            members[receiver.deviceID]?.agreement == receiverPoint
        else { throw SyncError(.refused, "a key share for this device is malformed") }
        return Contents(epoch: epoch, topLevel: topLevel, members: members, approval: approval)
    }

    // MARK: - Private

    private static func publicKey(_ point: Data) throws -> EVPKey {
        do {
            return try point.withUnsafeBytes { try EVPKey.ec(group: DeviceIdentity.curve, point: $0, scalar: nil) }
        } catch {
            throw SyncError(.refused, "a device's agreement key is not a P-256 point")
        }
    }

    private static func boxKey(_ shared: SecureBytes, ephemeral: Data, receiver: Data) throws -> Data {
        var input = shared.withUnsafeBytes { Data($0) }
        input.append(ephemeral)
        input.append(receiver)
        defer { input.resetBytes(in: 0..<input.count) }
        return try SyncCrypto.derive(input, purpose: "swift-keychain sync key share v1")
    }

    private static func boxAAD(_ account: UUID, _ sender: UUID, _ receiver: UUID, _ keyID: UUID) -> Data {
        var aad = AssociatedData("swift-keychain sync key share v1")
        aad.append(account)
        aad.append(sender)
        aad.append(receiver)
        aad.append(keyID)
        return aad.bytes
    }

    private static func signedMessage(_ account: UUID, _ sender: UUID, _ receiver: UUID, _ keyID: UUID, _ wrapped: Data) -> Data {
        var message = AssociatedData("swift-keychain sync key share signature v1")
        message.append(account)
        message.append(sender)
        message.append(receiver)
        message.append(keyID)
        message.append(wrapped)
        return message.bytes
    }
}
