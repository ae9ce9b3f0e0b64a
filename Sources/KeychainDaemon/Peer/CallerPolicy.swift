import Foundation
import KeychainCore

/// Decides, from a peer's credentials, which access groups the caller gets, in this order:
///
/// 1. A peer whose user is not the one the socket serves is refused (`errSecAuthFailed`): in
///    user mode the daemon's own user; in system mode, the user of that socket.
/// 2. A process in a Flatpak sandbox (its `.flatpak-info`, `FlatpakInfoLocation`) gets exactly
///    the group of its application ID: never the administrator's, never a registered program's,
///    whatever it runs. A sandbox whose application cannot be told is refused.
/// 3. The owner's administration tool gets every group (`*`; its adds go to `default`) and administers: an executable
///    whose device, inode and SHA-256 are those of one of `administratorPaths` now (by default
///    the `security` beside the daemon's own executable).
/// 4. A program the owner registered gets the groups of its entitlements, if its executable is
///    at the registered path and its SHA-256 is still the registered one (a changed executable
///    loses them until it is registered again).
/// 5. Any other program of the user gets the group `default`.
///
/// What the peer's files said counts only if the peer is still the process that connected once
/// they were read (`PeerCredentials.requireStillRunning`).
public struct CallerPolicy: Sendable {
    /// The user whose peers are served.
    public let expectedUID: UInt32
    /// The executables that administer the keychain, checked by what they are at each call.
    public let administratorPaths: [String]
    /// Where a process's Flatpak sandbox description is.
    public let flatpakInfo: FlatpakInfoLocation
    /// The executables' digests already computed.
    public let digests: ExecutableDigestCache

    /// A policy serving `expectedUID`'s peers.
    ///
    /// - Parameters:
    ///   - administratorPaths: the administration tools; `besideDaemon()` gives the default.
    ///   - flatpakInfo: where to look for a sandbox description (tests point it elsewhere).
    public init(
        expectedUID: UInt32, administratorPaths: [String], flatpakInfo: FlatpakInfoLocation = .sandboxRoot,
        digests: ExecutableDigestCache = ExecutableDigestCache()
    ) {
        self.expectedUID = expectedUID
        self.administratorPaths = administratorPaths
        self.flatpakInfo = flatpakInfo
        self.digests = digests
    }

    /// The `security` command installed beside the running daemon (same directory as its
    /// `/proc/self/exe`), followed by `extra` (tests add their own tools here).
    public static func administratorPaths(besideDaemonWith extra: [String] = []) throws -> [String] {
        let daemon: String
        do {
            daemon = try ProcessCalls.readLink("/proc/self/exe")
        } catch let error as ProcessCallError {
            throw error.keychainError
        }
        return [(daemon as NSString).deletingLastPathComponent + "/security"] + extra
    }

    /// What `peer` may do. `registeredPrograms` is read only when the caller is neither sandboxed
    /// nor the administrator.
    ///
    /// - Throws: `errSecAuthFailed` when the peer is of another user, runs in a sandbox whose
    ///   application cannot be told, or cannot be identified (it exited, or its files cannot be
    ///   read); whatever `registeredPrograms` throws (`errSecDecode` for an altered registry).
    public func access(for peer: PeerCredentials, registeredPrograms: () throws -> [RegisteredProgram]) throws -> CallerAccess {
        guard peer.uid == expectedUID else {
            throw KeychainError(.authFailed, "the caller belongs to another user")
        }
        if let sandbox = try sandbox(of: peer) {
            try peer.requireStillRunning()
            return CallerAccess(standing: .sandboxed(applicationID: sandbox.applicationID), groups: [sandbox.applicationID])
        }
        let executable = try peer.executable(digests: digests)
        if try isAdministrator(executable) {
            // Every group; its adds go to `default`, as the tool's own adds do in-process.
            return CallerAccess(standing: .administrator, groups: [AccessContext.defaultGroup, "*"])
        }
        if let program = try registeredPrograms().first(where: {
            $0.executablePath == executable.path && $0.executableDigest == executable.digest
        }) {
            return CallerAccess(standing: .registeredProgram(executablePath: program.executablePath), groups: program.entitlements.accessGroups)
        }
        return CallerAccess(standing: .ordinary, groups: [AccessContext.defaultGroup])
    }

    /// The peer's sandbox description; nil when it has none.
    private func sandbox(of peer: PeerCredentials) throws -> FlatpakInfo? {
        let data: Data?
        do {
            data = try ProcessCalls.readSmallFile(flatpakInfo.path(peer.pid), limit: FlatpakInfo.sizeLimit, noFollow: true)
        } catch let error as ProcessCallError {
            throw error.keychainError
        }
        guard let data else { return nil }
        guard let info = FlatpakInfo(parsing: data) else {
            throw KeychainError(.authFailed, "the caller runs in a sandbox whose application cannot be told")
        }
        return info
    }

    /// Whether `executable` is one of the administration tools as they are now.
    private func isAdministrator(_ executable: ExecutableIdentity) throws -> Bool {
        for path in administratorPaths {
            guard let tool = try? ExecutableIdentity.of(file: path, digests: digests) else { continue }
            if tool.device == executable.device && tool.inode == executable.inode && tool.digest == executable.digest {
                return true
            }
        }
        return false
    }
}
