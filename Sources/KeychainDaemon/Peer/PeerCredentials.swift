import Foundation
import KeychainCore

/// Who is at the other end of a connected Unix socket: the process, user and group the kernel
/// recorded when it connected (`SO_PEERCRED`), held by a pidfd where the kernel offers one
/// (`PeerProcess` says how a recycled pid is ruled out), and the executable it runs.
///
/// The credentials are those of the process that called `connect`. A process that shares the
/// socket (by `fork` or descriptor passing) does not speak for it: the daemon reads every request
/// with its writer's credentials and closes a connection another process writes on.
public final class PeerCredentials: Sendable {
    /// The process id, in the daemon's pid namespace.
    public let pid: Int32
    /// The effective user id when the peer connected.
    public let uid: UInt32
    /// The effective group id when the peer connected.
    public let gid: UInt32
    /// Whether the process is held by a pidfd (false: by its start time, on kernels before 6.5).
    public var isHeldByPidfd: Bool {
        if case .pidfd = process.hold { return true }
        return false
    }

    let process: PeerProcess

    /// Reads the peer of `socket`, a connected Unix stream socket.
    ///
    /// - Parameter usePidfd: false takes the path of a kernel without `SO_PEERPIDFD`.
    /// - Throws: `errSecAuthFailed` when the socket has no peer credentials or the peer has
    ///   already exited.
    public convenience init(socket: Int32) throws {
        try self.init(socket: socket, usePidfd: true)
    }

    init(socket: Int32, usePidfd: Bool, proc: String = "/proc") throws {
        do {
            let credentials = try ProcessCalls.peerCredentials(socket: socket)
            pid = credentials.pid
            uid = credentials.uid
            gid = credentials.gid
            process = try PeerProcess(socket: socket, pid: credentials.pid, usePidfd: usePidfd, proc: proc)
        } catch let error as ProcessCallError {
            throw error.keychainError
        }
    }

    /// The executable the peer runs, read through `/proc/<pid>/exe` (the running file itself,
    /// whatever has its name now) and confirmed to be the peer's: the process is still the one
    /// that connected once it was read.
    ///
    /// - Throws: `errSecAuthFailed` when it cannot be read, or the peer exited meanwhile.
    public func executable(digests: ExecutableDigestCache) throws -> ExecutableIdentity {
        let identity = try ExecutableIdentity.ofProcess(pid, proc: process.proc, digests: digests)
        try requireStillRunning()
        return identity
    }

    /// `/proc/<pid>` as the daemon sees it, for reading other files of the peer; what is read
    /// there is the peer's only if `requireStillRunning` succeeds afterwards.
    public var procDirectory: String { "\(process.proc)/\(pid)" }

    /// The name grants are bound to: the user, the pid and the process's start time, so a grant
    /// never passes to another process (not even one that takes the pid over later).
    var grantOwner: String {
        let started = (try? PeerProcess.startTime(of: pid, proc: process.proc)).map(String.init) ?? "?"
        return "\(uid):\(pid):\(started)"
    }

    /// Whether the process a `grantOwner` name names has ended: no process runs under its pid,
    /// or the one that does started at another time (it took the pid over). A name of another
    /// shape is never taken for an ended process.
    static func hasEnded(grantOwner owner: String, proc: String = "/proc") -> Bool {
        let parts = owner.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let pid = Int32(parts[1]) else { return false }
        guard let started = try? PeerProcess.startTime(of: pid, proc: proc) else { return true }
        return String(started) != parts[2]
    }

    /// Confirms that the process that connected still runs under `pid`, so that what was read
    /// from `/proc/<pid>` before this call was its own.
    ///
    /// - Throws: `errSecAuthFailed` when it exited (its pid may now be another process's).
    public func requireStillRunning() throws {
        guard process.isStillRunning else {
            throw KeychainError(.authFailed, "the caller exited before it could be identified")
        }
    }
}
