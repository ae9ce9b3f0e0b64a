import Foundation
import CLinuxSupport
import KeychainAuthentication
import KeychainCore
import KeychainCrypto
import KeychainService
import KeychainSync
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The keychain service: listens on its socket and serves each client's requests.
public enum Daemon {
    /// Runs the daemon until it exits; returns the process's exit status.
    ///
    /// Without `--foreground` this process only starts the daemon: it runs itself again with
    /// `--foreground` in a new session (detached from the terminal) and returns once the socket
    /// answers, as a client that starts the daemon expects. `--system` runs `SystemDaemon`, always
    /// in the foreground (a service manager starts it).
    public static func run(_ options: DaemonOptions) -> Int32 {
        if options.system { return SystemDaemon.run(options) }
        guard options.foreground else { return DaemonStart.detach(options) }
        harden()
        // Biometric constraints are checked with the user's fingerprint reader (fprintd verifies
        // the user this daemon runs as; a system daemon asks for each user it serves by name).
        FingerprintBiometrics.useMachineReaderForKeychains()
        TerminationSignals.exitNormallyOnTermination()
        let socketPath = options.socket ?? ServiceLocation.userSocket
        let listener: UnixListener
        if let inherited = SystemdActivation.listeningDescriptor() {
            listener = UnixListener(inheritedDescriptor: inherited)
        } else {
            do {
                guard let claimed = try claimSocket(at: socketPath) else {
                    log("another keychaind serves \(socketPath)")
                    return 0
                }
                listener = claimed
            } catch {
                log("cannot listen on \(socketPath): \(error)")
                return 71
            }
        }
        let policy: CallerPolicy
        do {
            let flatpakInfo = options.flatpakInfoDirectory.map { directory in
                FlatpakInfoLocation { "\(directory)/\($0)/.flatpak-info" }
            } ?? .sandboxRoot
            policy = CallerPolicy(
                expectedUID: getuid(), administratorPaths: try CallerPolicy.administratorPaths(besideDaemonWith: []),
                flatpakInfo: flatpakInfo)
        } catch {
            log("cannot find its own executable: \(error)")
            return 71
        }
        var handler = RequestHandler(defaultKeychainPath: KeychainLocation.defaultKeychainPath, policy: policy)
        if ProcessInfo.processInfo.environment[backgroundSyncVariable] != "off" {
            handler.backgroundSync = BackgroundSync(log: { log($0) }) { path in
                EmbeddedKeychain(try Keychain.open(path: path, create: false), context: AccessContext(accessGroups: ["*"]))
            }
        }
        LoginSessionWatcher(
            uid: getuid(), environment: ProcessInfo.processInfo.environment, lockKeychains: handler.lockEveryKeychain, log: log
        ).start()
        let server = DaemonServer(listener: listener, handler: handler)
        if let idle = options.idleExit {
            IdleExit.watch(server, after: idle, socketPath: listener.path)
        }
        log("serving \(listener.path ?? "the socket systemd passed")")
        server.serve()
    }

    /// The environment variable that turns background sync off when set to `off` (the daemon
    /// then syncs only when `security sync now` runs).
    public static let backgroundSyncVariable = "KEYCHAIN_SYNC_BACKGROUND"

    /// No core dumps and no same-user `ptrace` of the daemon (`PR_SET_DUMPABLE` 0), key buffers
    /// locked in RAM, and no end by SIGPIPE or SIGXFSZ.
    static func harden() {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        _ = clinux_set_not_dumpable()
        SecureBytes.locksMemory.store(true, ordering: .relaxed)
        Keychain.holdKeychainsExclusively()
        signal(SIGPIPE, SIG_IGN)
        // A file-size limit (RLIMIT_FSIZE) makes a write fail with EFBIG, which the engine
        // reports as a disk status, instead of ending the daemon of every client.
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Creates the socket's private directory, takes the exclusive lock beside the socket and
    /// listens; nil when another daemon holds the lock.
    static func claimSocket(at path: String) throws -> UnixListener? {
        let directory = (path as NSString).deletingLastPathComponent
        try FileSystem.makePrivateDirectory(directory)
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw SocketError(errno: errno, operation: "open \(lockPath)") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        // The descriptor stays open (and locked) for the life of the process.
        _ = ftruncate(descriptor, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        unlink(path)  // a socket left by a daemon that died
        return try UnixListener(path: path)
    }

    /// Writes a line to standard error (the journal under systemd); never a secret or value.
    static func log(_ message: String) {
        FileHandle.standardError.write(Data("keychaind[\(getpid())]: \(message)\n".utf8))
    }
}
