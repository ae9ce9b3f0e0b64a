import Foundation

/// A keychain's keybag (`<keychain>.keybag`): its class keys, each wrapped, and the header that
/// says how, as Apple's keybags hold them (a header with the version, UUID and passcode
/// derivation, then one wrapped key per class).
///
/// Layout (big-endian): magic, format version, keybag UUID, flags, passcode KDF (PBKDF2-SHA256),
/// iteration count and salt, the failed-attempt record, the lock settings, then one entry per
/// key (key class, wrapping, wrapped key), in format 2 the TPM passcode gate's blob
/// (`PasscodeGate`), and an HMAC-SHA256 over everything before it, keyed from the device key.
/// Any change to the file is detected when it is read. A keybag without a gate is written in
/// format 1, which every earlier version reads.
///
/// The class keys of A and C are wrapped by a key derived from the passcode (when one is set)
/// mixed with the device key; D keys and the index key by the device key alone.
struct Keybag: Sendable {
    /// The file's magic.
    static let magic = Data("SKC-KEYBAG\n".utf8)
    /// The format version of a keybag without a passcode gate.
    static let formatVersion: UInt16 = 1
    /// The format version of a keybag with a passcode gate.
    static let gatedFormatVersion: UInt16 = 2
    /// The MAC length.
    static let macLength = 32

    /// How an entry's key is wrapped.
    enum Wrapping: UInt8, Sendable {
        /// By a key derived from the device key alone.
        case device = 1
        /// By a key derived from the passcode mixed with the device key.
        case deviceAndPasscode = 2
    }

    /// One wrapped key.
    struct Entry: Sendable {
        var keyClass: KeybagClass
        var wrapping: Wrapping
        var wrapped: Data
    }

    /// How the passcode becomes key material.
    struct PasscodeParameters: Equatable, Sendable {
        /// The PBKDF2 salt (16 random bytes, new for every passcode).
        var salt: Data
        /// The PBKDF2 iteration count, calibrated when the passcode was set.
        var iterations: Int
    }

    /// The keybag's identity; the database records it, so a keybag from elsewhere is refused.
    var uuid: Data
    /// The passcode's parameters; nil when the keychain has no passcode.
    var passcode: PasscodeParameters?
    /// Failed passcode attempts.
    var attempts = PasscodeAttempts()
    /// Lock settings.
    var settings = KeychainSettings()
    /// The wrapped keys.
    var entries: [Entry] = []
    /// The TPM passcode gate's encoded blob (`PasscodeGate`); nil when the passcode has none.
    var passcodeGate: Data?

    /// The entry for `keyClass`.
    func entry(_ keyClass: KeybagClass) -> Entry? { entries.first { $0.keyClass == keyClass } }

    // MARK: - Encoding

    /// The file's bytes, MAC included.
    func encoded(deviceKey: SymmetricKey) throws -> Data {
        var writer = ByteWriter()
        writer.raw(Self.magic)
        writer.integer(passcodeGate == nil ? Self.formatVersion : Self.gatedFormatVersion)
        writer.raw(uuid)
        var flags: UInt8 = 0
        if passcode != nil { flags |= 1 }
        if attempts.lastFailure != nil { flags |= 2 }
        if attempts.lastWrongFingerprint != nil { flags |= 4 }
        writer.u8(flags)
        writer.u8(passcode == nil ? 0 : 1)  // KDF: 1 = PBKDF2-HMAC-SHA256
        writer.integer(UInt32(passcode?.iterations ?? 0))
        writer.raw(passcode?.salt ?? Data(count: 16))
        writer.integer(attempts.failures)
        writer.integer((attempts.lastFailure?.timeIntervalSince1970 ?? 0).bitPattern)
        writer.raw(attempts.lastWrongFingerprint ?? Data(count: 32))
        writer.u8(settings.lockOnSleep ? 1 : 0)
        writer.u8(settings.useLockInterval ? 1 : 0)
        writer.integer(Int64(settings.lockInterval ?? -1))
        writer.u8(UInt8(entries.count))
        for entry in entries {
            writer.u8(entry.keyClass.rawValue)
            writer.u8(entry.wrapping.rawValue)
            writer.lengthPrefixed(entry.wrapped)
        }
        if let passcodeGate { writer.lengthPrefixed(passcodeGate) }
        let mac = try Self.macKey(deviceKey).authenticationCode(for: writer.data)
        return writer.data + mac
    }

    /// Reads a keybag file's bytes, checking the MAC before anything else.
    ///
    /// - Throws: `errSecInvalidKeychain` when the MAC does not match (the file was changed, or it
    ///   belongs to another device) or the file is not a keybag this version reads.
    static func decode(_ data: Data, deviceKey: SymmetricKey) throws -> Keybag {
        guard data.count > magic.count + macLength, data.prefix(magic.count) == magic else {
            throw KeychainError(.invalidKeychain, "the keybag file is not a keybag")
        }
        let body = data.prefix(data.count - macLength)
        let expected = try macKey(deviceKey).authenticationCode(for: Data(body))
        guard ConstantTime.equal(expected, Data(data.suffix(macLength))) else {
            throw KeychainError(.invalidKeychain, "the keybag has been altered or belongs to another device")
        }
        do {
            return try parse(Data(body))
        } catch let error as KeychainError where error.code == .decode {
            throw KeychainError(.invalidKeychain, "the keybag is malformed")
        }
    }

    private static func parse(_ body: Data) throws -> Keybag {
        var reader = ByteReader(body)
        _ = try reader.raw(magic.count)
        let version = try reader.integer(UInt16.self)
        guard version == formatVersion || version == gatedFormatVersion else {
            throw KeychainError(.invalidKeychain, "the keybag was written by a newer version")
        }
        var keybag = Keybag(uuid: try reader.raw(16))
        let flags = try reader.u8()
        let kdf = try reader.u8()
        let iterations = Int(try reader.integer(UInt32.self))
        let salt = try reader.raw(16)
        if flags & 1 != 0 {
            guard kdf == 1 else { throw KeychainError(.invalidKeychain, "the keybag names an unknown passcode KDF") }
            keybag.passcode = PasscodeParameters(salt: salt, iterations: iterations)
        }
        keybag.attempts.failures = try reader.integer(UInt32.self)
        let lastFailure = Double(bitPattern: try reader.integer(UInt64.self))
        if flags & 2 != 0 { keybag.attempts.lastFailure = Date(timeIntervalSince1970: lastFailure) }
        let fingerprint = try reader.raw(32)
        if flags & 4 != 0 { keybag.attempts.lastWrongFingerprint = fingerprint }
        keybag.settings.lockOnSleep = try reader.u8() != 0
        keybag.settings.useLockInterval = try reader.u8() != 0
        let interval = try reader.integer(Int64.self)
        keybag.settings.lockInterval = interval < 0 ? nil : Int(clamping: interval)
        let count = try reader.u8()
        for _ in 0..<count {
            guard let keyClass = KeybagClass(rawValue: try reader.u8()), let wrapping = Wrapping(rawValue: try reader.u8())
            else { throw KeychainError(.invalidKeychain, "the keybag has an unknown entry") }
            keybag.entries.append(Entry(keyClass: keyClass, wrapping: wrapping, wrapped: try reader.lengthPrefixed(limit: 256)))
        }
        if version == gatedFormatVersion { keybag.passcodeGate = try reader.lengthPrefixed(limit: 1024) }
        try reader.requireEnd()
        return keybag
    }

    private static func macKey(_ deviceKey: SymmetricKey) throws -> SymmetricKey {
        try deviceKey.derive(purpose: "keybag mac v1")
    }

    // MARK: - Files

    /// Reads and verifies the keybag at `path`; nil when there is none.
    ///
    /// - Throws: `errSecWrPerm` when the file is not private to the calling user.
    static func load(path: String, deviceKey: SymmetricKey) throws -> Keybag? {
        guard let data = try FileSystem.readPrivate(path, role: .keybag) else { return nil }
        return try decode(data, deviceKey: deviceKey)
    }

    /// Replaces the keybag at `path` atomically with a private file; the keybag replaced must
    /// be private too.
    func save(path: String, deviceKey: SymmetricKey) throws {
        try FileSystem.replaceAtomically(path, contents: try encoded(deviceKey: deviceKey), role: .keybag)
    }

    // MARK: - Replacing the keys

    /// Where a keybag with new class keys waits (`<keybag>.new`) while the database is re-sealed
    /// to them: the database names the keybag it was sealed for (by UUID), and the transaction
    /// that re-seals it also names the new one, so whichever of the two files the database
    /// names is the keybag, and a crash at any point leaves one consistent pair.
    static func stagedPath(_ path: String) -> String { path + ".new" }

    /// Writes this keybag to the staging path beside `path` (replacing what is there).
    func stage(path: String, deviceKey: SymmetricKey) throws {
        try FileSystem.replaceAtomically(Self.stagedPath(path), contents: try encoded(deviceKey: deviceKey), role: .keybag)
    }

    /// The keybag the database names by `uuid`: the file at `path`, or a staged keybag whose
    /// re-sealing transaction committed before its file was moved into place (it is moved now).
    ///
    /// - Throws: `errSecInvalidKeychain` when neither file is that keybag (an older copy of the
    ///   keybag was put back, or the database was replaced), or when there is no keybag.
    static func load(path: String, deviceKey: SymmetricKey, naming uuid: Data) throws -> Keybag {
        if let keybag = try load(path: path, deviceKey: deviceKey), keybag.uuid == uuid { return keybag }
        let staged = stagedPath(path)
        // A staged keybag that does not open is left from a re-sealing that did not commit.
        if let keybag = try? load(path: staged, deviceKey: deviceKey), keybag.uuid == uuid {
            // Another process may finish the same move first; then the file at `path` is this one.
            _ = try FileSystem.moveAtomically(staged, over: path)
            return keybag
        }
        if let keybag = try load(path: path, deviceKey: deviceKey), keybag.uuid == uuid { return keybag }
        // An older copy of this keychain's keybag, or another keychain's.
        throw KeychainError(.invalidKeychain, "the keybag does not belong to this keychain")
    }

    /// Publishes the keybag at `path` (a private file) unless one is there; returns false if one was.
    func createFile(path: String, deviceKey: SymmetricKey) throws -> Bool {
        try FileSystem.createExclusively(path, contents: try encoded(deviceKey: deviceKey), role: .keybag)
    }
}
