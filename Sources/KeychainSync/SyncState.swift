import Foundation
import KeychainCore

/// What a keychain keeps about its sync, in one item of the keychain itself: a generic password
/// of service `swift-keychain-sync`, account `state`, in its own access group, invisible,
/// `AfterFirstUnlockThisDeviceOnly` and not synchronizable, so the keychain's own encryption
/// protects it and it never leaves the device. It holds the server's connection string, the
/// device identity's private keys, the account's keys, the last change sequence seen and the
/// mirror: the state of each record as last synced.
struct SyncState: Codable {
    /// The record state as last synced (what was uploaded or applied).
    struct MirrorEntry: Codable {
        /// SHA-256 of the item's class and primary key.
        var primaryKey: String
        /// SHA-256 of the item's encoding.
        var content: String
        /// The record's generation.
        var generation: Int64
    }

    var conninfo: String
    var accountID: UUID
    var deviceID: UUID
    var signingScalar: Data
    var agreementScalar: Data
    var topLevelID: UUID
    var topLevelKey: Data
    var classKeyIDs: [String: UUID]
    var classKeyBytes: [String: Data]
    var lastSequence: Int64 = 0
    var lastSync: Date?
    /// By record id (lower-case UUID text).
    var mirror: [String: MirrorEntry] = [:]
    /// The version of the account's manifest this device last verified or wrote (nil: none yet).
    var manifestVersion: Int64?
    /// Records that lost a primary-key collision and are still to be deleted from the server, by
    /// record id, with the generation the deletion expects (they stay in the server's set until
    /// an upload deletes them).
    var unsentDeletions: [String: Int64]?
    /// Why the last exchange failed; nil after one that succeeded.
    var lastError: String?

    static let service = "swift-keychain-sync"
    static let account = "state"
    static let accessGroup = "swift-keychain.sync"

    /// The account keys it holds.
    var keys: AccountKeys {
        var classKeys: [String: AccountKeys.Key] = [:]
        for (name, id) in classKeyIDs {
            if let bytes = classKeyBytes[name] { classKeys[name] = AccountKeys.Key(id: id, bytes: bytes) }
        }
        return AccountKeys(accountID: accountID, topLevel: AccountKeys.Key(id: topLevelID, bytes: topLevelKey), classKeys: classKeys)
    }

    /// The device identity it holds.
    func identity() throws -> DeviceIdentity {
        try DeviceIdentity(deviceID: deviceID, signing: signingScalar, agreement: agreementScalar)
    }

    /// A state for a device that just enabled or joined.
    init(conninfo: String, keys: AccountKeys, identity: DeviceIdentity) throws {
        self.conninfo = conninfo
        accountID = keys.accountID
        deviceID = identity.deviceID
        (signingScalar, agreementScalar) = try identity.scalars()
        topLevelID = keys.topLevel.id
        topLevelKey = keys.topLevel.bytes
        classKeyIDs = keys.classKeys.mapValues(\.id)
        classKeyBytes = keys.classKeys.mapValues(\.bytes)
    }

    private static func itemRequest() -> ItemRequest {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes[.service] = .string(service)
        request.attributes[.account] = .string(account)
        request.attributes[.accessGroup] = .string(accessGroup)
        request.synchronizable = .only(false)
        return request
    }

    /// The keychain's state; nil when it has not enabled or joined sync.
    static func load(from keychain: any KeychainHandle) throws -> SyncState? {
        var request = itemRequest()
        request.returns = .data
        request.matchLimit = .one
        let results: [ItemResult]
        do {
            results = try keychain.search(request)
        } catch let error as KeychainError where error.code == .itemNotFound {
            return nil
        } catch {
            throw SyncError(.keychain, "cannot read the sync state: \(error)")
        }
        guard let data = results.first?.data, let state = try? JSONDecoder().decode(SyncState.self, from: data) else {
            throw SyncError(.keychain, "the keychain's sync state is unreadable")
        }
        return state
    }

    /// Stores the state (adds the item the first time).
    func save(to keychain: any KeychainHandle) throws {
        let data = try JSONEncoder().encode(self)
        do {
            var changes = ItemChanges()
            changes.secret = data
            do {
                try keychain.update(Self.itemRequest(), changes: changes)
            } catch let error as KeychainError where error.code == .itemNotFound {
                var request = Self.itemRequest()
                request.attributes[.accessible] = .string(Protection.afterFirstUnlockThisDeviceOnly.rawValue)
                request.attributes[.isInvisible] = .integer(1)
                request.attributes[.label] = .string("swift-keychain sync state")
                request.secret = data
                _ = try keychain.add(request)
            }
        } catch {
            throw SyncError(.keychain, "cannot store the sync state: \(error)")
        }
    }

    /// Removes the state (an enable or join whose server transaction failed).
    static func remove(from keychain: any KeychainHandle) {
        _ = try? keychain.delete(itemRequest())
    }
}
