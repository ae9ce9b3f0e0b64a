import Foundation
import KeychainCore

/// Who sent a request, as the daemon decided it from the connection's peer credentials.
public struct Caller: Sendable {
    /// The caller's process id when it connected.
    public var processID: Int32
    /// The access groups the caller may use.
    public var context: AccessContext
    /// Whether the caller is the owner's administration tool (the `security` command installed
    /// beside the daemon): it sees every group and manages the registry of programs.
    public var isAdministrator: Bool
    /// Whether the caller runs in a sandbox (Flatpak): it gets its app's group only, never a
    /// registered program's, and may use only the default keychain, since the daemon opens files
    /// the sandbox hides from it.
    public var isSandboxed: Bool
    /// The caller's executable (its path when it connected, and SHA-256 of its content), by which
    /// a registered program is recognised; nil when it could not be read.
    public var executable: (path: String, digest: Data)?

    /// Creates a caller.
    public init(
        processID: Int32, context: AccessContext, isAdministrator: Bool, isSandboxed: Bool,
        executable: (path: String, digest: Data)?
    ) {
        self.processID = processID
        self.context = context
        self.isAdministrator = isAdministrator
        self.isSandboxed = isSandboxed
        self.executable = executable
    }
}
