import Foundation
import KeychainCore

/// An account's key hierarchy: the top-level key (TLK) wraps a class A key (items accessible
/// when unlocked) and a class C key (after first unlock, always); each record's own item key is
/// wrapped by its class key. Every key has an identifier that the associated data of what it
/// wraps names, so a wrapped key or record cannot be moved under another parent.
struct AccountKeys {
    /// A symmetric key and its identifier.
    struct Key {
        let id: UUID
        let bytes: Data
    }

    /// The class names, as the server stores them.
    static let classA = "classA"
    static let classC = "classC"

    /// The account these keys belong to (bound into every sealed value).
    let accountID: UUID
    let topLevel: Key
    let classKeys: [String: Key]

    /// A new hierarchy for a new account.
    static func generate(accountID: UUID) throws -> AccountKeys {
        AccountKeys(
            accountID: accountID, topLevel: Key(id: UUID(), bytes: try SyncCrypto.newKey()),
            classKeys: [
                classA: Key(id: UUID(), bytes: try SyncCrypto.newKey()),
                classC: Key(id: UUID(), bytes: try SyncCrypto.newKey()),
            ])
    }

    /// The class key for an item of protection `protection` (when unlocked → class A; after first
    /// unlock, always → class C; absent → when unlocked, the default; ThisDeviceOnly → none).
    func classKey(forProtection protection: String?) -> (name: String, key: Key)? {
        switch protection.map(Protection.init(rawValue:)) ?? .whenUnlocked {
        case .whenUnlocked: return classKeys[Self.classA].map { (Self.classA, $0) }
        case .afterFirstUnlock, .always: return classKeys[Self.classC].map { (Self.classC, $0) }
        default: return nil
        }
    }

    /// The class key with identifier `id`.
    func classKey(id: UUID) -> Key? { classKeys.values.first { $0.id == id } }

    // MARK: - Class keys under the TLK

    /// A class key wrapped by the TLK, bound to the account, its id, class and parent.
    func wrapClassKey(named name: String) throws -> Data {
        guard let key = classKeys[name] else { throw SyncError(.badInput, "no \(name) key") }
        return try SyncCrypto.seal(key.bytes, key: topLevel.bytes, aad: Self.classKeyAAD(accountID, key.id, name, topLevel.id))
    }

    /// Unwraps a class key row.
    ///
    /// - Throws: `SyncError.refused` when it does not authenticate under `topLevel`.
    static func unwrapClassKey(_ wrapped: Data, id: UUID, name: String, parent: UUID, accountID: UUID, topLevel: Key) throws -> Key {
        guard parent == topLevel.id else { throw SyncError(.refused, "a class key names a parent that is not the account's TLK") }
        let bytes = try SyncCrypto.open(wrapped, key: topLevel.bytes, aad: classKeyAAD(accountID, id, name, parent))
        guard bytes.count == SyncCrypto.keyLength else { throw SyncError(.refused, "a class key has the wrong length") }
        return Key(id: id, bytes: bytes)
    }

    private static func classKeyAAD(_ account: UUID, _ id: UUID, _ name: String, _ parent: UUID) -> Data {
        var aad = AssociatedData("swift-keychain sync class key v1")
        aad.append(account)
        aad.append(id)
        aad.append(name)
        aad.append(parent)
        return aad.bytes
    }

    // MARK: - Devices vouched for by TLK holders

    /// The code by which a holder of the TLK vouches for a device's public keys (the server,
    /// which has no TLK, cannot make one).
    func vouch(deviceID: UUID, signing: Data, agreement: Data) throws -> Data {
        var message = AssociatedData("swift-keychain sync device v1")
        message.append(accountID)
        message.append(deviceID)
        message.append(signing)
        message.append(agreement)
        return try SyncCrypto.authenticationCode(message.bytes, key: SyncCrypto.derive(topLevel.bytes, purpose: "device vouch"))
    }

    /// The message a device signs for its list of trusted devices under this TLK (a list signed
    /// under an earlier TLK does not verify under a later one).
    func deviceListMessage(signer: UUID, devices: [UUID]) -> Data {
        var message = AssociatedData("swift-keychain sync device list v2")
        message.append(accountID)
        message.append(topLevel.id)
        message.append(signer)
        message.append(Int64(devices.count))
        for device in devices.sorted(by: { $0.uuidString < $1.uuidString }) { message.append(device) }
        return message.bytes
    }
}
