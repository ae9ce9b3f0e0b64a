#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainService

/// In daemon mode (`KEYCHAIN_MODE=daemon`), a `keychaind` of the test's own: the children the
/// test starts with `environment` reach it on a private socket, which the clients start on first
/// use, so the test may stop or kill it (a restart, a crash) without touching the daemon other
/// tests run through at the same time. In embedded mode there is no daemon and every method does
/// nothing.
final class PrivateDaemon {
    /// Whether the tests reach their keychains through `keychaind`.
    static var inUse: Bool { (try? ServiceLocation.requestedMode()) == .daemon }

    /// The socket (in a private directory of its own).
    let socketPath: String
    private let directory: String

    init() {
        directory = "/tmp/kcd-test-\(UUID().uuidString.prefix(8))"
        socketPath = directory + "/" + ServiceLocation.socketName
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What a child needs in its environment to use this daemon (nothing in embedded mode).
    var environment: [String: String] {
        Self.inUse ? [ServiceLocation.socketVariable: socketPath] : [:]
    }

    /// The daemon's process id while it runs (from the lock file beside its socket).
    var pid: pid_t? {
        guard Self.inUse, running else { return nil }
        return writtenPid
    }

    private var writtenPid: pid_t? {
        guard let text = try? String(contentsOfFile: socketPath + ".lock", encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Ends the daemon as `systemctl stop` does (SIGTERM: it exits normally) and waits until it is
    /// gone. A machine's restart, or a daemon's normal end, as the keychain's files see it.
    func stop() { end(with: SIGTERM) }

    /// Kills the daemon with SIGKILL (a crash: no exit handler runs) and waits until it is gone.
    ///
    /// - Returns: whether a daemon was running and was killed.
    @discardableResult
    func crash() -> Bool { end(with: SIGKILL) }

    @discardableResult
    private func end(with signal: Int32) -> Bool {
        guard Self.inUse else { return false }
        var sent = false
        while running {
            // The pid is written just after the lock is taken: until then there is none to signal.
            if !sent, let pid = writtenPid {
                kill(pid, signal)
                sent = true
            }
            usleep(1_000)
        }
        return sent
    }

    /// Whether a daemon holds the lock beside the socket (released only when its process ends).
    private var running: Bool {
        let descriptor = open(socketPath + ".lock", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }
}
