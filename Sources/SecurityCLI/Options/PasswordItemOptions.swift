import KeychainCore

/// The two password classes the `*-generic-password` and `*-internet-password` commands handle.
enum PasswordKind: Sendable {
    /// `kSecClassGenericPassword` (`genp`).
    case generic
    /// `kSecClassInternetPassword` (`inet`).
    case internet

    /// The engine's item class.
    var itemClass: ItemClass { self == .generic ? .genericPassword : .internetPassword }
}

/// What a password command does.
enum PasswordOperation: Sendable {
    /// `add-*-password`.
    case add
    /// `find-*-password`.
    case find
    /// `delete-*-password`.
    case delete
}

/// Where an added item's password comes from.
enum PasswordInput: Equatable, Sendable {
    /// No `-w`, `-p` or `-X`: the item gets an empty password, as on macOS.
    case none
    /// `-w value`, `-p value` or `-X hex`.
    case bytes([UInt8])
    /// A trailing `-w` with no value: prompt twice on the terminal.
    case prompt
}

/// The options of one password command, parsed with the getopt strings of macOS's `security`.
struct PasswordItemOptions: Equatable, Sendable {
    /// `-a`: the account.
    var account: String?
    /// `-s`: the service (generic passwords) or server (internet passwords).
    var serviceOrServer: String?
    /// `-l`: the label.
    var label: String?
    /// `-D`: the kind (`desc`).
    var kind: String?
    /// `-j`: the comment (`icmt`).
    var comment: String?
    /// `-G`: the generic attribute (`gena`, generic passwords only).
    var genericValue: String?
    /// `-c`: the creator.
    var creator: FourCharacterCode?
    /// `-C`: the type.
    var type: FourCharacterCode?
    /// `-d`: the security domain (internet passwords).
    var securityDomain: String?
    /// `-p`: the path (internet passwords).
    var path: String?
    /// `-P`: the port (internet passwords); 0 is "none", as on macOS.
    var port: UInt16 = 0
    /// `-r`: the protocol (internet passwords).
    var protocolCode: FourCharacterCode?
    /// `-t`: the authentication type (internet passwords).
    var authenticationType: FourCharacterCode?
    /// `-e`: the item's accessibility (add only; not in macOS's tool, whose keychains have no
    /// protection classes). Without it an item is `kSecAttrAccessibleWhenUnlocked`.
    var accessibility: Protection?
    /// `-A flags`: the item's access control constraints (add only); nil without them (a bare
    /// `-A`, macOS's "any application" flag, is accepted and changes nothing).
    var accessControl: AccessControlPolicy.Flags?
    /// The password to store (add only).
    var password: PasswordInput = .none
    /// `-U`: update an existing item instead of failing (add only).
    var update = false
    /// `-S` (adds): the item is synchronizable (part of its primary key).
    var synchronizable = false
    /// `-g`: print the attributes and the password (find only).
    var showPassword = false
    /// `-w`: print only the password (find only).
    var passwordOnly = false
    /// Keychain operands.
    var keychains: [String] = []

    /// Whether any match criterion was given (delete refuses to run without one).
    var hasCriteria: Bool {
        account != nil || serviceOrServer != nil || label != nil || kind != nil || comment != nil
            || genericValue != nil || creator != nil || type != nil || securityDomain != nil || path != nil
            || port != 0 || protocolCode != nil || authenticationType != nil
    }
}
