import Foundation

/// A program the keychain's owner registered with entitlements (`security entitlements add`):
/// `keychaind` grants its access groups to a caller whose executable is this file with this
/// content, and to no other.
public struct RegisteredProgram: Equatable, Sendable {
    /// The executable's absolute path when it was registered.
    public var executablePath: String
    /// SHA-256 of the executable's content when it was registered; a program whose file changed
    /// since (an update, a replacement) loses the groups until it is registered again.
    public var executableDigest: Data
    /// The entitlements granted.
    public var entitlements: Entitlements

    /// Creates a registration.
    public init(executablePath: String, executableDigest: Data, entitlements: Entitlements) {
        self.executablePath = executablePath
        self.executableDigest = executableDigest
        self.entitlements = entitlements
    }
}
