import Foundation
import KeychainCore

/// The daemon's use of each keychain's registry of programs: registering an executable with
/// entitlements, and deciding a caller's groups from it.
struct ProgramRegistry: Sendable {
    /// Computes an executable's SHA-256 (cached by file identity).
    let digest: @Sendable (String) throws -> Data

    /// Registers the executable at `path` (pinned to its current content) with the entitlements
    /// property list `entitlements`.
    ///
    /// - Throws: `.param` for a relative path, a file that is not a readable regular file, or
    ///   entitlements that do not parse.
    func register(executablePath path: String, entitlements: Data, in keychain: Keychain) throws {
        guard path.hasPrefix("/") else { throw KeychainError(.param, "the program must be named by an absolute path") }
        let parsed: Entitlements
        do {
            parsed = try Entitlements(propertyList: entitlements)
        } catch {
            throw KeychainError(.param, "the entitlements file is not a valid property list of entitlements")
        }
        let program = RegisteredProgram(executablePath: path, executableDigest: try digest(path), entitlements: parsed)
        try keychain.registerProgram(program)
    }

    /// The groups `caller` has in `keychain`: the administrator's and a sandboxed program's as
    /// the connection decided them; a program registered in this keychain (same path, same
    /// content) gets its registered groups; any other program the connection's default.
    func context(for caller: Caller, in keychain: Keychain) throws -> AccessContext {
        guard !caller.isAdministrator, !caller.isSandboxed, let executable = caller.executable else { return caller.context }
        let registered = try keychain.registeredPrograms().first {
            $0.executablePath == executable.path && $0.executableDigest == executable.digest
        }
        guard let registered else { return caller.context }
        return AccessContext(accessGroups: registered.entitlements.accessGroups)
    }
}
