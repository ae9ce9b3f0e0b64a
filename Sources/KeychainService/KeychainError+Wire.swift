import KeychainCore

/// An engine error: its code's tag (UInt16, `wireTag`), its reason, the refused file?, then the
/// access-control flags? (UInt64) of an item that needs authentication.
extension KeychainError: WireCodable {
    /// Writes the code's tag, the reason and the refused file.
    public func encode(to writer: inout WireWriter) throws {
        writer.integer(code.wireTag)
        writer.string(reason)
        try writer.optional(unsafeFile) { try $0.write($1) }
        writer.optional(constraints) { $0.integer($1.rawValue) }
    }

    /// Reads an error as the other process raised it.
    public init(from reader: inout WireReader) throws {
        let code = try KeychainError.Code(wireTag: try reader.integer(UInt16.self))
        let reason = try reader.string()
        let file: UnsafeFile? = try reader.optional { try $0.read() }
        let constraints = try reader.optional { AccessControlPolicy.Flags(rawValue: try $0.integer(UInt64.self)) }
        self.init(code, reason, unsafeFile: file, constraints: constraints)
    }
}

extension KeychainError.Code {
    /// The code's number on the wire. Fixed per code, whatever the order of the enum's cases:
    /// a new code takes a new number, and a number is never reused.
    public var wireTag: UInt16 {
        switch self {
        case .unimplemented: return 1
        case .diskFull: return 2
        case .io: return 3
        case .writePermission: return 4
        case .param: return 5
        case .allocate: return 6
        case .notAvailable: return 7
        case .readOnly: return 8
        case .authFailed: return 9
        case .noSuchKeychain: return 10
        case .invalidKeychain: return 11
        case .duplicateKeychain: return 12
        case .duplicateItem: return 13
        case .itemNotFound: return 14
        case .noSuchAttribute: return 15
        case .noSuchClass: return 16
        case .keySizeNotAllowed: return 17
        case .unsupportedFormat: return 18
        case .unknownFormat: return 19
        case .passphraseRequired: return 20
        case .verifyFailed: return 21
        case .interactionNotAllowed: return 22
        case .decode: return 23
        case .missingEntitlement: return 24
        case .internal: return 25
        case .authenticationNeeded: return 26
        case .userCanceled: return 27
        }
    }

    /// The code with this wire number.
    ///
    /// - Throws: `WireError.Kind.unknownTag` for a number no code has.
    public init(wireTag: UInt16) throws {
        guard let code = Self.allCases.first(where: { $0.wireTag == wireTag }) else {
            throw WireError(.unknownTag, "unknown error code")
        }
        self = code
    }
}

/// A refused file: path, role, whether it is the directory, then its problem: 1 owned by
/// another user (owner, caller: UInt32 each), 2 open to others (mode: UInt32), 3 a symbolic
/// link, 4 the wrong type.
extension UnsafeFile: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        writer.string(path)
        writer.string(role)
        writer.bool(isDirectory)
        switch problem {
        case .ownedByAnotherUser(let owner, let caller):
            writer.u8(1)
            writer.integer(owner)
            writer.integer(caller)
        case .openToOthers(let mode):
            writer.u8(2)
            writer.integer(mode)
        case .symbolicLink: writer.u8(3)
        case .wrongType: writer.u8(4)
        }
    }

    /// Reads every field.
    public init(from reader: inout WireReader) throws {
        let path = try reader.string()
        let role = try reader.string()
        let isDirectory = try reader.bool()
        let problem: Problem
        switch try reader.u8() {
        case 1: problem = .ownedByAnotherUser(owner: try reader.integer(UInt32.self), caller: try reader.integer(UInt32.self))
        case 2: problem = .openToOthers(mode: try reader.integer(UInt32.self))
        case 3: problem = .symbolicLink
        case 4: problem = .wrongType
        default: throw WireError(.unknownTag, "unknown file problem")
        }
        self.init(path: path, role: role, isDirectory: isDirectory, problem: problem)
    }
}
