import Foundation
import KeychainCore

/// How the daemon decides a caller's groups in a keychain from that keychain's registry of
/// programs.
enum ProgramRegistry {
    /// The groups `caller` has in `keychain`: the administrator's and a sandboxed program's as
    /// the connection decided them; a program registered in this keychain (same path, same
    /// content) gets its registered groups; any other program the connection's default.
    static func context(for caller: Caller, in keychain: Keychain) throws -> AccessContext {
        guard !caller.isAdministrator, !caller.isSandboxed, let executable = caller.executable else { return caller.context }
        let registered = try keychain.registeredPrograms().first {
            $0.executablePath == executable.path && $0.executableDigest == executable.digest
        }
        guard let registered else { return caller.context }
        return AccessContext(accessGroups: registered.entitlements.accessGroups)
    }
}
