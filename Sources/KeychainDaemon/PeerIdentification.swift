import CLinuxSupport
import Foundation
import KeychainCore
import KeychainService
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Decides who is at the other end of a connection: its uid (only the daemon's own user is
/// served), its executable, and so its access groups.
struct PeerIdentification: Sendable {
    /// The administration tools' files (device, inode): the `security` command installed beside
    /// the daemon.
    let administratorTools: [(device: UInt64, inode: UInt64)]

    /// The `security` executable in the daemon's own directory, if there is one.
    static func toolsBesideDaemon() -> [(device: UInt64, inode: UInt64)] {
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return [] }
        let tool = ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("security")
        var info = stat()
        guard stat(tool, &info) == 0 else { return [] }
        return [(UInt64(info.st_dev), UInt64(info.st_ino))]
    }

    /// The caller at the other end of `socket`.
    ///
    /// - Throws: `.missingEntitlement` for a peer of another user or one whose credentials
    ///   cannot be read.
    func caller(of socket: UnixSocket) throws -> Caller {
        var credentials = (pid: pid_t(0), uid: uid_t(0), gid: gid_t(0))
        guard clinux_peer_credentials(socket.descriptor, &credentials.pid, &credentials.uid, &credentials.gid) == 0 else {
            throw KeychainError(.missingEntitlement, "the caller's credentials cannot be read")
        }
        guard credentials.uid == getuid() else {
            throw KeychainError(.missingEntitlement, "keychaind serves only its own user")
        }
        let executablePath = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(credentials.pid)/exe")
        var info = stat()
        let isAdministrator = stat("/proc/\(credentials.pid)/exe", &info) == 0
            && administratorTools.contains { $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) }
        let executable = executablePath.flatMap { path in
            (try? ExecutableDigest.shared.digest(ofFileAt: "/proc/\(credentials.pid)/exe")).map { (path: path, digest: $0) }
        }
        let groups = isAdministrator ? [AccessContext.defaultGroup, "*"] : [AccessContext.defaultGroup]
        return Caller(
            processID: credentials.pid, context: AccessContext(accessGroups: groups),
            isAdministrator: isAdministrator, isSandboxed: false, executable: executable)
    }
}
