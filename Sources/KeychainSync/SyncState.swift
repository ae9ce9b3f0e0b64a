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
    struct MirrorEntry: Codable, Equatable {
        /// SHA-256 of the item's class and primary key.
        var primaryKey: String
        /// SHA-256 of the item's encoding.
        var content: String
        /// The record's generation.
        var generation: Int64
        /// SHA-256 of the encoding of the item the record carries (nil in states written before
        /// it was kept: `content` stands in). A record that comes back at a later generation
        /// with this same item was only sealed again (a key roll): it does not overwrite a
        /// local change, which is uploaded under the new keys instead.
        var record: String? = nil
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
    /// The account's key epoch these keys belong to (each key roll raises it; a key share of an
    /// epoch not above it is a replay). Nil in states written before epochs: 1.
    var keyEpoch: Int64?
    /// The devices this device trusts (itself included), by id (lower-case UUID text), with the
    /// public keys it verified when it came to trust them. Nil in states written before it was
    /// kept: the devices the TLK holders vouched for, at the next exchange.
    var trusted: [String: TrustedDevice]?
    var lastSync: Date?
    /// By record id (lower-case UUID text).
    @CompactMirror var mirror: [String: MirrorEntry] = [:]
    /// The version of the account's manifest this device last verified or wrote (nil: none yet).
    var manifestVersion: Int64?
    /// The fingerprints (hexadecimal) of the latest manifests this device verified or wrote, by
    /// version (decimal text), to compare other devices' checkpoints with (nil: none yet).
    var seenManifests: [String: String]?
    /// The newest checkpoint version seen from each other device, by device id (a checkpoint
    /// older than that is a replay).
    var checkpointsSeen: [String: Int64]?
    /// The manifest version of the last checkpoint this device published (nil: none yet).
    var publishedCheckpoint: Int64?
    /// Records that lost a primary-key collision and are still to be deleted from the server, by
    /// record id, with the generation the deletion expects (they stay in the server's set until
    /// an upload deletes them).
    var unsentDeletions: [String: Int64]?
    /// Why the last exchange failed; nil after one that succeeded.
    var lastError: String?
    /// What the last exchange saw of each local row of the synced classes (nil in states written
    /// before it was kept, or by exchanges through a daemon: every item is then read).
    var localVersions: LocalVersions?

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
    init(conninfo: String, keys: AccountKeys, epoch: Int64, identity: DeviceIdentity, trusted: [String: TrustedDevice]) throws {
        self.conninfo = conninfo
        accountID = keys.accountID
        deviceID = identity.deviceID
        (signingScalar, agreementScalar) = try identity.scalars()
        topLevelID = keys.topLevel.id
        topLevelKey = keys.topLevel.bytes
        classKeyIDs = keys.classKeys.mapValues(\.id)
        classKeyBytes = keys.classKeys.mapValues(\.bytes)
        keyEpoch = epoch
        self.trusted = trusted
    }

    /// Replaces the account keys (after a key roll), with their epoch.
    mutating func adopt(_ keys: AccountKeys, epoch: Int64) {
        topLevelID = keys.topLevel.id
        topLevelKey = keys.topLevel.bytes
        classKeyIDs = keys.classKeys.mapValues(\.id)
        classKeyBytes = keys.classKeys.mapValues(\.bytes)
        keyEpoch = epoch
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

/// The mirror as the sync state stores it: one base64 string of fixed-size entries (record id, 16
/// bytes; primary-key digest, 32; a flag and the content digest, 1 + 32; a flag and the record's
/// item digest, 1 + 32; generation, 8 bytes little-endian), which JSON reads and writes as a single value (a dictionary of 10 000 objects
/// took Foundation's JSON coders most of a second each way). The dictionary form of earlier
/// states is still read, and is written when an entry does not fit the fixed form.
@propertyWrapper
struct CompactMirror: Codable {
    var wrappedValue: [String: SyncState.MirrorEntry]

    init(wrappedValue: [String: SyncState.MirrorEntry]) {
        self.wrappedValue = wrappedValue
    }

    private static let entryLength = 16 + 32 + 1 + 32 + 1 + 32 + 8

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self) else {
            wrappedValue = try container.decode([String: SyncState.MirrorEntry].self)
            return
        }
        guard let data = Data(base64Encoded: text), data.count % Self.entryLength == 0 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "the mirror is malformed")
        }
        var mirror: [String: SyncState.MirrorEntry] = [:]
        mirror.reserveCapacity(data.count / Self.entryLength)
        let bytes = [UInt8](data)
        var offset = 0
        while offset < bytes.count {
            let id = bytes[offset..<offset + 16].withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            let primaryKey = SyncCrypto.hex(bytes[offset + 16..<offset + 48])
            let content = bytes[offset + 48] == 1 ? SyncCrypto.hex(bytes[offset + 49..<offset + 81]) : ""
            let record = bytes[offset + 81] == 1 ? SyncCrypto.hex(bytes[offset + 82..<offset + 114]) : nil
            let generation = bytes[offset + 114..<offset + 122].withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
            mirror[id.uuidString.lowercased()] = SyncState.MirrorEntry(
                primaryKey: primaryKey, content: content, generation: generation, record: record)
            offset += Self.entryLength
        }
        wrappedValue = mirror
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        // The digits are turned into bytes in place (a state of 10 000 records has 30 000).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(wrappedValue.count * Self.entryLength)
        for (key, entry) in wrappedValue {
            guard let id = UUID(uuidString: key), Self.append(entry, id: id, to: &bytes) else {
                try container.encode(wrappedValue)
                return
            }
        }
        try container.encode(Data(bytes).base64EncodedString())
    }

    /// Appends the fixed form of one entry; false when a digest does not fit it.
    private static func append(_ entry: SyncState.MirrorEntry, id: UUID, to bytes: inout [UInt8]) -> Bool {
        withUnsafeBytes(of: id.uuid) { bytes.append(contentsOf: $0) }
        func appendFlagged(_ digest: String?) -> Bool {
            guard let digest else {
                bytes.append(0)
                bytes.append(contentsOf: repeatElement(0, count: 32))
                return true
            }
            bytes.append(1)
            return SyncCrypto.appendBytes(hex: digest, count: 32, to: &bytes)
        }
        guard SyncCrypto.appendBytes(hex: entry.primaryKey, count: 32, to: &bytes),
            appendFlagged(entry.content.isEmpty ? nil : entry.content), appendFlagged(entry.record)
        else { return false }
        withUnsafeBytes(of: entry.generation.littleEndian) { bytes.append(contentsOf: $0) }
        return true
    }
}
