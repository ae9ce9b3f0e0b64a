import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Socket activation: systemd passes the listening socket as descriptor 3 with `LISTEN_FDS=1`
/// and `LISTEN_PID` set to the daemon's pid.
enum SystemdActivation {
    /// The first descriptor systemd passes.
    static let firstDescriptor: Int32 = 3

    /// The listening socket systemd passed to this process, if any; the variables are removed so
    /// that children do not take it for theirs.
    static func listeningDescriptor() -> Int32? {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }), pid_t(pidText) == getpid(),
            let countText = getenv("LISTEN_FDS").map({ String(cString: $0) }), let count = Int32(countText), count >= 1
        else { return nil }
        return firstDescriptor
    }
}
