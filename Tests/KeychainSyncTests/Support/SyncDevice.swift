import Foundation
import KeychainService

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What one run of the `security` binary produced.
struct ToolRun: Sendable {
    let status: Int32
    let output: String
    let error: String
}

/// One device of a sync test: a keychain directory of its own (`XDG_DATA_HOME` in each run's
/// environment), used through the built `security` binary. In daemon mode
/// (`KEYCHAIN_MODE=daemon`) its runs go through a `keychaind` of its own on a private socket,
/// ended by `stop()`. Its daemon syncs in the background only when the device is made with
/// `background: true` (which also makes it use a daemon in either mode); otherwise the test
/// decides every exchange with `security sync now`. `daemon: true` makes it use a daemon in either
/// mode too.
final class SyncDevice: @unchecked Sendable {
    let home: String
    let daemonSocket: String?
    let background: Bool

    init(background: Bool = false, daemon: Bool = false) throws {
        self.background = background
        var template = Array("/tmp/kssync-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PostgresServer.Failure(what: "mkdtemp failed")
        }
        home = String(cString: made)
        daemonSocket = background || daemon || (try? ServiceLocation.requestedMode()) == .daemon
            ? "/tmp/kcd-sync-\(UUID().uuidString.prefix(8))/\(ServiceLocation.socketName)" : nil
    }

    deinit { stop() }

    /// Ends this device's daemon (if any) and removes its directory.
    func stop() {
        stopDaemon()
        try? FileManager.default.removeItem(atPath: home)
    }

    /// The path of this device's default keychain.
    var keychainPath: String { home + "/swift-keychain/login.keychain-db" }

    /// Ends this device's daemon (if any) and waits until it has exited; its keychain stays.
    func stopDaemon() {
        if let daemonSocket {
            var sent = false
            while true {
                let descriptor = open(daemonSocket + ".lock", O_RDWR | O_CLOEXEC)
                guard descriptor >= 0 else { break }
                let held = flock(descriptor, LOCK_EX | LOCK_NB) != 0
                close(descriptor)
                guard held else { break }
                if !sent, let text = try? String(contentsOfFile: daemonSocket + ".lock", encoding: .utf8),
                    let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
                {
                    kill(pid, SIGTERM)
                    sent = true
                }
                usleep(1_000)
            }
            try? FileManager.default.removeItem(atPath: (daemonSocket as NSString).deletingLastPathComponent)
        }
    }

    /// The built `security` executable, next to the test bundle.
    static let executable = built("security")

    /// The built `keychain-test-client` (a program using `import Security` as an app would).
    static let client = built("keychain-test-client")

    /// The path of the built executable `name`, next to the test bundle.
    private static func built(_ name: String) -> String {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        }
        fatalError("\(name) was not built next to the tests (looked in \(candidates))")
    }

    /// Runs `security` with `arguments` as this device.
    func run(_ arguments: String...) throws -> ToolRun {
        try start(arguments, output: home + "/.stdout", error: home + "/.stderr").wait()
    }

    /// Runs `keychain-test-client` with `arguments` as this device (SecItem and SecKey calls on
    /// its keychain, through its keychaind in daemon mode).
    func client(_ arguments: String...) throws -> ToolRun {
        try start(arguments, output: home + "/.stdout", error: home + "/.stderr", executable: Self.client).wait()
    }

    /// A run of `security` started and not waited for yet.
    final class RunningTool: @unchecked Sendable {
        let pid: pid_t
        let output: String
        let error: String
        /// The wait status, once reaped.
        private var reaped: Int32?

        init(pid: pid_t, output: String, error: String) {
            self.pid = pid
            self.output = output
            self.error = error
        }

        /// The rest of the first line of standard output that starts with `prefix`, once written;
        /// nil if the run exits first.
        func line(startingWith prefix: String) -> String? {
            while true {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
                    return String(line.dropFirst(prefix.count))
                }
                guard reaped == nil else { return nil }
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    reaped = status
                    continue  // read the output once more: it may have written the line and exited
                }
                usleep(20_000)
            }
        }

        /// Waits for it to exit.
        func wait() -> ToolRun {
            var status: Int32 = reaped ?? 0
            if reaped == nil {
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                reaped = status
            }
            let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            return ToolRun(
                status: exitStatus, output: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
                error: (try? String(contentsOfFile: error, encoding: .utf8)) ?? "")
        }
    }

    /// Starts `security` with `arguments` as this device, its standard output and error going to
    /// files of its own (so another run can go on meanwhile).
    func start(_ arguments: String...) throws -> RunningTool {
        let name = UUID().uuidString.prefix(8)
        return try start(arguments, output: home + "/.stdout-\(name)", error: home + "/.stderr-\(name)")
    }

    private func start(_ arguments: [String], output: String, error: String, executable: String = SyncDevice.executable) throws -> RunningTool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home
        environment["KEYCHAIN_ENTITLEMENTS"] = nil
        if let daemonSocket {
            environment[ServiceLocation.socketVariable] = daemonSocket
            environment[ServiceLocation.modeVariable] = "daemon"
        }
        environment["KEYCHAIN_SYNC_BACKGROUND"] = background ? nil : "off"
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        guard posix_spawn(&child, executable, &actions, nil, argv, envp) == 0 else {
            throw PostgresServer.Failure(what: "cannot start \(executable)")
        }
        return RunningTool(pid: child, output: output, error: error)
    }

    /// The password of the item with account `account` and service `service`; nil when absent.
    func password(_ account: String, _ service: String) throws -> String? {
        let run = try run("find-generic-password", "-a", account, "-s", service, "-w")
        guard run.status == 0 else { return nil }
        return String(run.output.dropLast())
    }
}
