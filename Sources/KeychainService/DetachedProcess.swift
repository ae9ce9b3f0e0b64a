import CLinuxSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starting a program that must not hold anything of its starter: a new session (no terminal,
/// no signals from the starter's process group), standard streams on `/dev/null`, every other
/// descriptor closed.
public enum DetachedProcess {
    /// Starts `path` with `arguments` (the first is the program's name) and this environment.
    ///
    /// - Returns: the child's pid, or nil when it could not be started (`errno` says why).
    public static func spawn(_ path: String, arguments: [String]) -> pid_t? {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let pid = clinux_spawn_detached(path, argv, environ)
        return pid > 0 ? pid : nil
    }

    /// Waits for `pid` to end; its exit status, or nil when it was killed by a signal.
    public static func wait(for pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : nil
    }
}
