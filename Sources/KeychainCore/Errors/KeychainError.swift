/// An error raised by the keychain engine.
///
/// The engine throws typed errors; the `Security` surface turns each into the `OSStatus` Apple's
/// API returns for the same situation. A reason never contains a secret or an attribute value:
/// it names keys and classes only, so it is safe to log.
public struct KeychainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The situations the engine reports, each with the `OSStatus` value Apple uses for it.
    public enum Code: Int32, Sendable {
        /// `errSecUnimplemented`: the operation exists in Apple's API but not (yet) here.
        case unimplemented = -4
        /// `errSecDiskFull`: the disk holding the keychain is full.
        case diskFull = -34
        /// `errSecIO`: the storage layer failed to read or write.
        case io = -36
        /// `errSecWrPerm`: a keychain file or directory is not private to the calling user (owned
        /// by another user, open to group or others, or a link), so it is not used; or it cannot
        /// be written (a read-only filesystem or directory).
        case writePermission = -61
        /// `errSecParam`: a request dictionary or value is not valid.
        case param = -50
        /// `errSecAllocate`: memory or disk space ran out.
        case allocate = -108
        /// `errSecNotAvailable`: the keychain database could not be used.
        case notAvailable = -25291
        /// `errSecReadOnly`: the keychain cannot be modified.
        case readOnly = -25292
        /// `errSecAuthFailed`: a passphrase or authentication was wrong.
        case authFailed = -25293
        /// `errSecNoSuchKeychain`: the named keychain does not exist.
        case noSuchKeychain = -25294
        /// `errSecInvalidKeychain`: the file is not a keychain this version can read.
        case invalidKeychain = -25295
        /// `errSecDuplicateKeychain`: a keychain with that name already exists.
        case duplicateKeychain = -25296
        /// `errSecDuplicateItem`: an item with the same primary key already exists.
        case duplicateItem = -25299
        /// `errSecItemNotFound`: nothing matched.
        case itemNotFound = -25300
        /// `errSecNoSuchAttr`: an attribute does not exist.
        case noSuchAttribute = -25303
        /// `errSecNoSuchClass`: `kSecClass` names no known class.
        case noSuchClass = -25306
        /// `errSecKeySizeNotAllowed`: a key size the key type does not support.
        case keySizeNotAllowed = -25311
        /// `errSecUnsupportedFormat`: a file format this keychain cannot import or export.
        case unsupportedFormat = -25256
        /// `errSecUnknownFormat`: input that is not in any format this keychain knows.
        case unknownFormat = -25257
        /// `errSecPassphraseRequired`: an encrypted import needs a passphrase.
        case passphraseRequired = -25260
        /// `errSecVerifyFailed`: a signature did not verify.
        case verifyFailed = -67808
        /// `errSecInteractionNotAllowed`: the item's protection class is unavailable now.
        case interactionNotAllowed = -25308
        /// `errSecDecode`: stored data failed authentication or could not be decoded.
        case decode = -26275
        /// `errSecMissingEntitlement`: the process is not entitled to an access group.
        case missingEntitlement = -34018
        /// `errSecInternal`: an invariant of the engine failed.
        case `internal` = -26276
    }

    /// What went wrong, as an `OSStatus`-valued code.
    public let code: Code
    /// A human-readable reason naming keys or classes, never values.
    public let reason: String
    /// For an `errSecWrPerm` refusal: the file or directory refused, with its path and the fix
    /// (the path stays out of `reason`).
    public let unsafeFile: UnsafeFile?

    /// Creates an error with a code and a reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
        unsafeFile = nil
    }

    /// The `errSecWrPerm` error refusing `file`; its reason names the file's role, the problem
    /// and the fix, not the path.
    public init(refusing file: UnsafeFile) {
        code = .writePermission
        reason = file.reason
        unsafeFile = file
    }

    /// The `OSStatus` value Apple's API returns for this error.
    public var status: Int32 { code.rawValue }

    public var description: String { "\(code) (\(code.rawValue)): \(reason)" }

    /// `errSecParam` with a reason.
    public static func param(_ reason: String) -> KeychainError { KeychainError(.param, reason) }
}
