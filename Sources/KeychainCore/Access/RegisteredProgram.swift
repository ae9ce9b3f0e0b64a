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

    /// The registration of the executable at `path`, as it is now (`digest` computes its
    /// SHA-256), with the entitlements in the property list `entitlementsFile`.
    ///
    /// - Throws: `.param` for a relative path, a file that is not a readable regular file, or
    ///   entitlements that do not parse.
    public init(
        executablePath path: String, entitlementsFile: Data,
        digest: (String) throws -> Data = { try ExecutableDigest.of(fileAt: $0) }
    ) throws {
        guard path.hasPrefix("/") else { throw KeychainError(.param, "the program must be named by an absolute path") }
        let entitlements: Entitlements
        do {
            entitlements = try Entitlements(propertyList: entitlementsFile)
        } catch {
            throw KeychainError(.param, "the entitlements file is not a valid property list of entitlements")
        }
        self.init(
            executablePath: path, executableDigest: try digest(path),
            entitlements: entitlements)
    }
}
