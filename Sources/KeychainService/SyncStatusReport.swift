import Foundation

/// What `security sync status` shows, as `keychaind` answers `ServiceOperation.syncStatus`: the
/// sync engine's status as the wire carries it (`uuid` account, `uuid` this device,
/// `[Device]?` devices, `string?` server error, `double?` last sync in seconds since 2001-01-01,
/// `string?` last error, `int` pending changes; a `uuid` is `bytes` of length 16).
public struct SyncStatusReport: Sendable, Equatable {
    /// A device of the account as the server lists it: `uuid` id, `u8` standing.
    public struct Device: Sendable, Equatable {
        /// Where a device stands for this device (tags 1, 2, 3).
        public enum Standing: UInt8, Sendable, Equatable {
            /// This device trusts it.
            case trusted = 1
            /// On the server but not trusted.
            case notTrusted = 2
            /// Asked to join and waits for a trusted device's approval.
            case pending = 3
        }

        /// The device's id.
        public var id: UUID
        /// Where it stands.
        public var standing: Standing

        /// A device `id` standing as `standing`.
        public init(id: UUID, standing: Standing) {
            self.id = id
            self.standing = standing
        }
    }

    /// The account's id.
    public var accountID: UUID
    /// This device's id.
    public var deviceID: UUID
    /// The devices, or nil when the server could not be reached (`serverError` says why).
    public var devices: [Device]?
    /// Why the server could not be reached.
    public var serverError: String?
    /// When the last exchange succeeded.
    public var lastSync: Date?
    /// Why the last exchange failed; nil when it succeeded.
    public var lastError: String?
    /// Local additions, changes and deletions not uploaded yet.
    public var pendingChanges: Int

    /// A status with these fields.
    public init(
        accountID: UUID, deviceID: UUID, devices: [Device]?, serverError: String?, lastSync: Date?, lastError: String?,
        pendingChanges: Int
    ) {
        self.accountID = accountID
        self.deviceID = deviceID
        self.devices = devices
        self.serverError = serverError
        self.lastSync = lastSync
        self.lastError = lastError
        self.pendingChanges = pendingChanges
    }
}

extension SyncStatusReport: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        Self.write(accountID, to: &writer)
        Self.write(deviceID, to: &writer)
        writer.optional(devices) { writer, devices in
            writer.array(devices) { writer, device in
                Self.write(device.id, to: &writer)
                writer.u8(device.standing.rawValue)
            }
        }
        writer.optional(serverError) { $0.string($1) }
        writer.optional(lastSync) { $0.double($1.timeIntervalSinceReferenceDate) }
        writer.optional(lastError) { $0.string($1) }
        writer.int(pendingChanges)
    }

    /// Reads every field; an id that is not 16 bytes, an unknown standing and a negative count
    /// are refused.
    public init(from reader: inout WireReader) throws {
        let accountID = try Self.readUUID(&reader)
        let deviceID = try Self.readUUID(&reader)
        let devices = try reader.optional { reader in
            try reader.array { reader in
                let id = try Self.readUUID(&reader)
                guard let standing = Device.Standing(rawValue: try reader.u8()) else {
                    throw WireError(.unknownTag, "unknown device standing")
                }
                return Device(id: id, standing: standing)
            }
        }
        self.init(
            accountID: accountID, deviceID: deviceID, devices: devices, serverError: try reader.optional { try $0.string() },
            lastSync: try reader.optional { Date(timeIntervalSinceReferenceDate: try $0.double()) },
            lastError: try reader.optional { try $0.string() }, pendingChanges: try reader.count())
    }

    private static func write(_ id: UUID, to writer: inout WireWriter) {
        withUnsafeBytes(of: id.uuid) { writer.bytes(Data($0)) }
    }

    private static func readUUID(_ reader: inout WireReader) throws -> UUID {
        let bytes = try reader.bytes()
        guard bytes.count == 16 else { throw WireError(.invalidValue, "an id is not 16 bytes") }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }
}
