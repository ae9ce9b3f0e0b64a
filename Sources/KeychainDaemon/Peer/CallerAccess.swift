import Foundation
import KeychainCore

/// What the daemon grants one caller: its access groups and whether it administers the
/// keychain (locks and unlocks it, registers programs, sees every group).
public struct CallerAccess: Sendable, Equatable {
    /// Why the caller gets what it gets.
    public enum Standing: Sendable, Equatable {
        /// The keychain owner's administration tool (the `security` command installed with the daemon).
        case administrator
        /// A program the owner registered, whose executable is still the registered one.
        case registeredProgram(executablePath: String)
        /// A program in a Flatpak sandbox: the group of its application ID only.
        case sandboxed(applicationID: String)
        /// Any other program of the owner: the default group.
        case ordinary
    }

    /// The caller's access groups (`*` for the administrator).
    public let context: AccessContext
    /// Whether the caller administers the keychain.
    public let isAdministrator: Bool
    /// Why.
    public let standing: Standing

    /// The access of a caller of `standing` with `groups`.
    init(standing: Standing, groups: [String]) {
        self.standing = standing
        context = AccessContext(accessGroups: groups)
        isAdministrator = standing == .administrator
    }
}
