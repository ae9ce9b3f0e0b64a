import Foundation
import KeychainCore

#if canImport(Glibc)
import Glibc
#endif

/// Starts `keychaind` for a client that found no daemon listening, as gpg-agent is started: the
/// client runs `keychaind --socket <path>`, which starts the daemon in a new session and returns
/// once the socket answers. Many clients may race to do this: the daemon holds an exclusive lock
/// beside its socket, so only one serves and the others' starts return at once.
public enum DaemonLauncher {
    /// The `keychaind` executable: `KEYCHAIND_PATH`, else `keychaind` beside the calling
    /// executable, else on `PATH`.
    public static var executable: String? {
        if let path = ServiceLocation.environment(ServiceLocation.executableVariable) {
            return access(path, X_OK) == 0 ? path : nil
        }
        var candidates: [String] = []
        if let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("keychaind"))
        }
        for directory in (ServiceLocation.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            candidates.append((String(directory) as NSString).appendingPathComponent("keychaind"))
        }
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// Starts the daemon for `socketPath` and waits until it answers.
    ///
    /// - Throws: `.notAvailable` when there is no `keychaind` to start or it did not come up.
    public static func start(socketPath: String) throws {
        guard let executable else {
            throw KeychainError(.notAvailable, "no keychaind to start (set KEYCHAIND_PATH or install it on PATH)")
        }
        guard let pid = DetachedProcess.spawn(executable, arguments: ["keychaind", "--socket", socketPath]) else {
            throw KeychainError(.notAvailable, "keychaind could not be started")
        }
        guard let status = DetachedProcess.wait(for: pid), status == 0 else {
            throw KeychainError(.notAvailable, "keychaind failed to start")
        }
    }
}
