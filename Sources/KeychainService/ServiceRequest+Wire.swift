import Foundation
import KeychainCore

/// A request's payload: the keychain path (text), the operation's tag (one byte), then the
/// operation's fields in the order `ServiceOperation` declares them. Tags are fixed per
/// operation: 1 open, 2 create, 3 deleteKeychain, 4 add, 5 search, 6 update, 7 delete,
/// 8 allItems, 9 status, 10 unlock, 11 lock, 12 changePasscode, 13 settings,
/// 14 updateSettings, 15 backup, 16 restore, 17 registerProgram, 18 registeredPrograms,
/// 19 removeProgram, 20 defaultAccessGroup, 21 authenticate, 22 authenticateBiometry,
/// 23 revokeAuthentication, 24 useKey, 25 generateKey, 26 generateEphemeralKey,
/// 27 forgetEphemeralKey, 28 syncNow, 29 syncStatus.
extension ServiceRequest: WireCodable {
    /// Writes the path, the tag and the fields.
    public func encode(to writer: inout WireWriter) throws {
        writer.string(keychainPath)
        switch operation {
        case .open(let create):
            writer.u8(1)
            writer.bool(create)
        case .create(let passcode):
            writer.u8(2)
            writer.optional(passcode) { $0.bytes($1) }
        case .deleteKeychain: writer.u8(3)
        case .add(let request):
            writer.u8(4)
            try writer.write(request)
        case .search(let request):
            writer.u8(5)
            try writer.write(request)
        case .update(let request, let changes):
            writer.u8(6)
            try writer.write(request)
            try writer.write(changes)
        case .delete(let request):
            writer.u8(7)
            try writer.write(request)
        case .allItems(let includingData):
            writer.u8(8)
            writer.bool(includingData)
        case .status: writer.u8(9)
        case .defaultAccessGroup: writer.u8(20)
        case .unlock(let passcode):
            writer.u8(10)
            writer.bytes(passcode)
        case .lock: writer.u8(11)
        case .changePasscode(let old, let new):
            writer.u8(12)
            writer.optional(old) { $0.bytes($1) }
            writer.optional(new) { $0.bytes($1) }
        case .settings: writer.u8(13)
        case .updateSettings(let settings):
            writer.u8(14)
            try writer.write(settings)
        case .backup(let path, let password):
            writer.u8(15)
            writer.string(path)
            writer.bytes(password)
        case .restore(let path, let password):
            writer.u8(16)
            writer.string(path)
            writer.bytes(password)
        case .registerProgram(let executablePath, let entitlements):
            writer.u8(17)
            writer.string(executablePath)
            writer.bytes(entitlements)
        case .registeredPrograms: writer.u8(18)
        case .removeProgram(let executablePath):
            writer.u8(19)
            writer.string(executablePath)
        case .authenticate(let passcode, let grant):
            writer.u8(21)
            writer.bytes(passcode)
            writer.optional(grant) { $0.bytes($1) }
        case .authenticateBiometry(let reason, let grant):
            writer.u8(22)
            writer.string(reason)
            writer.optional(grant) { $0.bytes($1) }
        case .revokeAuthentication(let grant):
            writer.u8(23)
            writer.bytes(grant)
        case .useKey(let use):
            writer.u8(24)
            try writer.write(use)
        case .generateKey(let request, let type, let bits):
            writer.u8(25)
            try writer.write(request)
            writer.integer(type.rawValue)
            writer.int(bits)
        case .generateEphemeralKey(let request, let type, let bits):
            writer.u8(26)
            try writer.write(request)
            writer.integer(type.rawValue)
            writer.int(bits)
        case .forgetEphemeralKey(let handle):
            writer.u8(27)
            writer.bytes(handle)
        case .syncNow: writer.u8(28)
        case .syncStatus: writer.u8(29)
        }
    }

    /// Reads the path, the tag and the fields.
    public init(from reader: inout WireReader) throws {
        let path = try reader.string()
        let operation: ServiceOperation
        switch try reader.u8() {
        case 1: operation = .open(create: try reader.bool())
        case 2: operation = .create(passcode: try reader.optional { try $0.bytes() })
        case 3: operation = .deleteKeychain
        case 4: operation = .add(try reader.read())
        case 5: operation = .search(try reader.read())
        case 6: operation = .update(try reader.read(), try reader.read())
        case 7: operation = .delete(try reader.read())
        case 8: operation = .allItems(includingData: try reader.bool())
        case 9: operation = .status
        case 10: operation = .unlock(passcode: try reader.bytes())
        case 11: operation = .lock
        case 12: operation = .changePasscode(old: try reader.optional { try $0.bytes() }, new: try reader.optional { try $0.bytes() })
        case 13: operation = .settings
        case 14: operation = .updateSettings(try reader.read())
        case 15: operation = .backup(path: try reader.string(), password: try reader.bytes())
        case 16: operation = .restore(path: try reader.string(), password: try reader.bytes())
        case 17: operation = .registerProgram(executablePath: try reader.string(), entitlements: try reader.bytes())
        case 18: operation = .registeredPrograms
        case 19: operation = .removeProgram(executablePath: try reader.string())
        case 20: operation = .defaultAccessGroup
        case 21: operation = .authenticate(passcode: try reader.bytes(), grant: try reader.optional { try $0.bytes() })
        case 22: operation = .authenticateBiometry(reason: try reader.string(), grant: try reader.optional { try $0.bytes() })
        case 23: operation = .revokeAuthentication(grant: try reader.bytes())
        case 24: operation = .useKey(try reader.read())
        case 25:
            let request = try reader.read(ItemRequest.self)
            guard let type = KeyType(rawValue: try reader.integer(Int64.self)) else { throw WireError(.unknownTag, "unknown key type") }
            operation = .generateKey(request, type: type, bits: try reader.int())
        case 26:
            let request = try reader.read(ItemRequest.self)
            guard let type = KeyType(rawValue: try reader.integer(Int64.self)) else { throw WireError(.unknownTag, "unknown key type") }
            operation = .generateEphemeralKey(request, type: type, bits: try reader.int())
        case 27: operation = .forgetEphemeralKey(handle: try reader.bytes())
        case 28: operation = .syncNow
        case 29: operation = .syncStatus
        default: throw WireError(.unknownTag, "unknown operation")
        }
        self.init(keychainPath: path, operation: operation)
    }

    /// The request as one frame (`ServiceFrame`). It holds any secret the request carries:
    /// zero it (`Data.wipe`) once sent.
    ///
    /// - Throws: `WireError.Kind.frameTooLarge`, or the engine's error for a key it cannot export.
    public func frame() throws -> Data { try ServiceFrame.encode { try $0.write(self) } }

    /// Decodes a frame's payload (`ServiceFrame.decodeFrame`); every byte must belong to the request.
    ///
    /// - Throws: `WireError`.
    public init(payload: Data) throws {
        var reader = WireReader(payload)
        self = try reader.read()
        try reader.finish()
    }
}
