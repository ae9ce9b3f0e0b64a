/// An error raised by the keychain engine: what went wrong, in the engine's terms.
///
/// The engine knows no `OSStatus`: the `Security` surface alone maps each code to the status
/// Apple's API returns for the same situation (and the `security` command uses that mapping).
/// Failures of SQLite and OpenSSL become these errors where the engine calls them. A reason
/// never contains a secret or an attribute value: it names keys and classes only, so it is safe
/// to log.
public struct KeychainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The situations the engine reports. Each is named after the `errSec…` status the `Security`
    /// surface reports it as (`.decode` as errSecDecode, `.writePermission` as errSecWrPerm), so
    /// an engine comment saying a call "throws errSecDecode" means the code `.decode`.
    public enum Code: Sendable, CaseIterable {
        /// The operation exists in Apple's API but not (yet) here.
        case unimplemented
        /// The disk holding the keychain is full.
        case diskFull
        /// The storage layer failed to read or write.
        case io
        /// A keychain file or directory is not private to the calling user (owned by another
        /// user, open to group or others, or a link), so it is not used; or it cannot be written
        /// (a read-only filesystem or directory).
        case writePermission
        /// A request dictionary or value is not valid.
        case param
        /// Memory or disk space ran out.
        case allocate
        /// The keychain database could not be used.
        case notAvailable
        /// The keychain cannot be modified.
        case readOnly
        /// A passphrase or authentication was wrong.
        case authFailed
        /// The named keychain does not exist.
        case noSuchKeychain
        /// The file is not a keychain this version can read.
        case invalidKeychain
        /// A keychain with that name already exists.
        case duplicateKeychain
        /// An item with the same primary key already exists.
        case duplicateItem
        /// Nothing matched.
        case itemNotFound
        /// An attribute does not exist.
        case noSuchAttribute
        /// The item class (`kSecClass`) names no known class.
        case noSuchClass
        /// A key size the key type does not support.
        case keySizeNotAllowed
        /// A file format this keychain cannot import or export.
        case unsupportedFormat
        /// Input that is not in any format this keychain knows.
        case unknownFormat
        /// An encrypted import needs a passphrase.
        case passphraseRequired
        /// A signature did not verify.
        case verifyFailed
        /// The item's protection class is unavailable now.
        case interactionNotAllowed
        /// Stored data failed authentication or could not be decoded.
        case decode
        /// The process is not entitled to an access group.
        case missingEntitlement
        /// An invariant of the engine failed.
        case `internal`
        /// The item's access control needs the user to authenticate before its secret is read
        /// (`constraints` says with what); the `Security` surface asks and tries again, and
        /// reports errSecInteractionNotAllowed when it may not ask.
        case authenticationNeeded
        /// The user cancelled an authentication.
        case userCanceled
    }

    /// What went wrong.
    public let code: Code
    /// A human-readable reason naming keys or classes, never values.
    public let reason: String
    /// For a `.writePermission` refusal: the file or directory refused, with its path and the fix
    /// (the path stays out of `reason`).
    public let unsafeFile: UnsafeFile?
    /// For `.authenticationNeeded`: the access-control flags of the item that needs it, so the
    /// caller knows what to ask the user for.
    public let constraints: AccessControlPolicy.Flags?

    /// Creates an error with a code and a reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
        unsafeFile = nil
        constraints = nil
    }

    /// The `.authenticationNeeded` error for an item whose access control has `constraints`.
    public init(authenticationNeededFor constraints: AccessControlPolicy.Flags) {
        code = .authenticationNeeded
        reason = "the item's access control needs the user to authenticate"
        unsafeFile = nil
        self.constraints = constraints
    }

    /// The `.writePermission` error refusing `file`; its reason names the file's role, the problem
    /// and the fix, not the path.
    public init(refusing file: UnsafeFile) {
        code = .writePermission
        reason = file.reason
        unsafeFile = file
        constraints = nil
    }

    /// An error with every field given, as another process reported it (`keychaind`'s protocol).
    package init(_ code: Code, _ reason: String, unsafeFile: UnsafeFile?, constraints: AccessControlPolicy.Flags? = nil) {
        self.code = code
        self.reason = reason
        self.unsafeFile = unsafeFile
        self.constraints = constraints
    }

    /// The code and the reason: `decode: the keychain is damaged: …`.
    public var description: String { "\(code): \(reason)" }

    /// A `.param` error (a request or value that is not valid) with a reason.
    public static func param(_ reason: String) -> KeychainError { KeychainError(.param, reason) }
}
