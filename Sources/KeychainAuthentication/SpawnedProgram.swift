import CLinuxSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program started with its standard input and output on a descriptor of the caller's (a
/// prompt program speaking over a socket), holding no other descriptor of the caller's.
///
/// Started with `posix_spawn` rather than Foundation's `Process`, whose start-up on Linux reads
/// every entry of `/proc/self/fd` to close descriptors (and has been seen to read past its buffer
/// in a process with a thousand descriptors open): a keychain's caller may be a server with
/// many connections open, and the prompt program must not inherit any of them.
final class SpawnedProgram {
    /// The program's process id.
    let pid: pid_t
    /// The wait status once the program was reaped.
    private var reaped: Int32?

    /// Starts `path` with no arguments but its name, the environment `variables`, and `stream`
    /// as its standard input and output (standard error goes to `/dev/null`).
    ///
    /// - Returns: nil when the program could not be started.
    init?(path: String, environment variables: [String: String], stream: Int32) {
        let argv = [strdup((path as NSString).lastPathComponent)] + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let pid = clinux_spawn_with_streams(path, argv, envp, stream, stream)
        guard pid > 0 else { return nil }
        self.pid = pid
    }

    /// Whether the program has not ended yet (reaping it once it has).
    var isRunning: Bool {
        guard reaped == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result < 0 && errno == ECHILD) {
            reaped = status
            return false
        }
        return true
    }

    /// Waits for the program to end and reaps it.
    func waitUntilExit() {
        guard reaped == nil else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { break }
        }
        reaped = status
    }

    /// Kills the program if it has not been reaped yet.
    func kill() {
        if reaped == nil { Glibc.kill(pid, SIGKILL) }
    }
}
