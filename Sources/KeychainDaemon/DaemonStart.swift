import CLinuxSupport
import Foundation
import KeychainService

#if canImport(Glibc)
import Glibc
#endif

/// Starting the daemon in the background: `keychaind` without `--foreground` runs itself again
/// with it, in a new session with standard streams on `/dev/null`, and waits until the socket
/// answers (or the new process ends: then another daemon already holds the socket, and the start
/// succeeds once it answers, or it failed).
enum DaemonStart {
    /// How long to wait for the socket to answer.
    static let timeout: TimeInterval = 10

    static func detach(_ options: DaemonOptions) -> Int32 {
        let socketPath = options.socket ?? ServiceLocation.userSocket
        var arguments = ["keychaind", "--foreground", "--socket", socketPath]
        arguments += ["--idle-exit", options.idleExit.map { String($0) } ?? "0"]
        guard let pid = spawnSelf(arguments) else {
            Daemon.log("cannot start the daemon (errno \(errno))")
            return 71
        }
        let deadline = Date().addingTimeInterval(timeout)
        var ended = false
        while Date() < deadline {
            if (try? UnixSocket.connect(to: socketPath)) != nil { return 0 }
            var status: Int32 = 0
            if !ended && waitpid(pid, &status, WNOHANG) == pid { ended = true }
            // It ended: fine when another daemon holds the socket, which may have taken the lock
            // and not be listening yet (many clients racing to start it): wait for it while it
            // holds the lock; fail once no daemon holds it and none answers.
            if ended && !lockIsHeld(beside: socketPath) {
                return (try? UnixSocket.connect(to: socketPath)) != nil ? 0 : 71
            }
            usleep(5_000)
        }
        Daemon.log("the daemon did not answer on \(socketPath)")
        return 71
    }

    /// Whether a daemon holds the lock beside `socketPath` (`Daemon.claimSocket`).
    private static func lockIsHeld(beside socketPath: String) -> Bool {
        let descriptor = open(socketPath + ".lock", O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }

    /// Runs this executable with `arguments` in a new session, detached from the terminal.
    private static func spawnSelf(_ arguments: [String]) -> pid_t? {
        // The executable by its path, so the process is named keychaind (not "exe").
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"
        return DetachedProcess.spawn(executable, arguments: arguments)
    }
}
