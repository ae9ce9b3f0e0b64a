import CLinuxSupport
import Foundation
import KeychainService

#if canImport(Glibc)
import Glibc
#endif

/// Starting the daemon in the background: `keychaind` without `--foreground` runs itself again
/// with it, in a new session with standard streams on `/dev/null`, and waits until the socket
/// answers (or the new process ends: then another daemon already serves the socket, or it failed).
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
        var childEnded = false
        while Date() < deadline {
            if (try? UnixSocket.connect(to: socketPath)) != nil { return 0 }
            // The new daemon ends at once when another one holds the socket's lock (many clients
            // raced to start one): that one may still be starting, so keep waiting for it.
            if !childEnded {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { childEnded = true }
            }
            usleep(5_000)
        }
        Daemon.log("the daemon did not answer on \(socketPath)")
        return 71
    }

    /// Runs this executable with `arguments` in a new session, detached from the terminal.
    private static func spawnSelf(_ arguments: [String]) -> pid_t? {
        // The executable by its path, so the process is named keychaind (not "exe").
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/proc/self/exe"
        return DetachedProcess.spawn(executable, arguments: arguments)
    }
}
