import Foundation
import Glibc
import KeychainService
import Testing

/// A user of the machine for the system-mode tests, created once with `useradd --system` (the
/// tests run as root, as CI does).
struct TestUser {
    let name: String
    let uid: UInt32
    let gid: UInt32

    /// The user `name`, created when missing.
    static func named(_ name: String) throws -> TestUser {
        creation.lock()
        defer { creation.unlock() }
        do {
            for _ in 0..<50 where getpwnam(name) == nil {
                // Another test process may hold the user database's lock: try again.
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/sbin/useradd")
                process.arguments = ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name]
                process.standardError = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                if getpwnam(name) == nil { usleep(100_000) }
            }
        }
        let entry = try #require(getpwnam(name), "useradd did not create \(name)")
        return TestUser(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    private static let creation = NSLock()
}

/// A `keychaind --system` of a test's own: started as root with a service user of its own, its
/// state and runtime directories in a world-traversable temporary directory, serving two test
/// users; and the programs those users run against it (as them, through `setpriv`).
final class SystemDaemonFixture {
    /// The test's directory (0755: the service user and the test users traverse it).
    let root: String
    let state: String
    let runtime: String
    let service: TestUser
    let first: TestUser
    let second: TestUser
    private(set) var daemon: Process?
    /// Variables added to the environment of the daemon and of the users' programs (a system
    /// bus address, …).
    let extraEnvironment: [String: String]

    static let serviceName = "kc-sys-service"

    /// Starts the daemon as root with `--user kc-sys-service`, serving `kc-sys-user1` and
    /// `kc-sys-user2`, with `environment` added to its own, and waits until it serves.
    init(environment extraEnvironment: [String: String] = [:]) throws {
        self.extraEnvironment = extraEnvironment
        root = "/tmp/kc-system-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        state = root + "/state"
        runtime = root + "/run"
        service = try TestUser.named(Self.serviceName)
        first = try TestUser.named("kc-sys-user1")
        second = try TestUser.named("kc-sys-user2")
        for user in [first, second] {
            let home = self.home(of: user)
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try #require(chown(home, user.uid, user.gid) == 0)
        }
        daemon = try start(
            ["--system", "--foreground", "--user", service.name, "--state-directory", state, "--runtime-directory", runtime,
             "--uid", String(first.uid), "--uid", String(second.uid)])
        // The last thing made before serving: the second user's keychain directory.
        try waitUntil { access(self.state + "/\(self.second.uid)", F_OK) == 0 }
    }

    deinit {
        if let daemon, daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A private home for `user` in the test's directory (its `XDG_DATA_HOME` too).
    func home(of user: TestUser) -> String { root + "/home-\(user.name)" }

    /// The socket serving `user`.
    func socket(of user: TestUser) -> String { ServiceLocation.systemSocket(for: user.uid, in: runtime) }

    /// The keychain directory of `user` under the state directory.
    func keychainDirectory(of user: TestUser) -> String { state + "/\(user.uid)" }

    /// Starts `keychaind` with `arguments` (as `user` when given), its log in the test's directory.
    func start(_ arguments: [String], as user: TestUser? = nil) throws -> Process {
        let process = Process()
        let log = root + "/keychaind-\(UUID().uuidString).log"
        FileManager.default.createFile(atPath: log, contents: nil)
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", DaemonFixture.products + "/keychaind"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: DaemonFixture.products + "/keychaind")
            process.arguments = arguments
        }
        process.environment = ["PATH": "/usr/bin:/bin"].merging(extraEnvironment) { _, extra in extra }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        return process
    }

    /// Waits (at most a minute) until `condition` holds.
    func waitUntil(_ condition: () -> Bool) throws {
        for _ in 0..<6_000 {
            if condition() { return }
            if let daemon, !daemon.isRunning { break }
            usleep(10_000)
        }
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: root))?.filter { $0.hasSuffix(".log") } ?? []
        let text = logs.compactMap { try? String(contentsOfFile: root + "/" + $0, encoding: .utf8) }.joined()
        Issue.record("keychaind --system did not come up: \(text)")
        throw CocoaError(.fileReadUnknown)
    }

    /// What a program printed, and its exit status.
    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs `executable` as `user` in system mode (`KEYCHAIN_MODE=system`), on `socket` (default:
    /// the user's own).
    func run(_ executable: String, _ arguments: [String], as user: TestUser, socket: String? = nil) throws -> Run {
        let home = home(of: user)
        let environment = [
            "KEYCHAIN_MODE": "system", "KEYCHAIND_SOCKET": socket ?? self.socket(of: user), "KEYCHAIND_STATE_DIRECTORY": state,
            "HOME": home, "XDG_DATA_HOME": home, "PATH": "/usr/bin:/bin",
        ].merging(extraEnvironment) { _, extra in extra }
        return try runAs(user, [executable] + arguments, environment: environment)
    }

    /// Runs `command` as `user` (no supplementary group) with `environment`.
    func runAs(_ user: TestUser, _ command: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws -> Run {
        let output = Pipe(), errors = Pipe()
        let process = try ExecutableFile.launch {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--"] + command
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: "/")
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = errors
            return process
        }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complained = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self), error: String(decoding: complained, as: UTF8.self))
    }

    /// Runs the test client as `user`; what it printed, trimmed.
    func app(_ arguments: String..., as user: TestUser, socket: String? = nil) throws -> String {
        try run(DaemonFixture.testClient, arguments, as: user, socket: socket).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the `security` command as `user`.
    func security(_ arguments: String..., as user: TestUser) throws -> Run {
        try run(DaemonFixture.securityTool, arguments, as: user)
    }

    /// The errno with which `open(path, O_RDONLY)` fails for `user` (0 when it opens).
    func openError(_ path: String, as user: TestUser) throws -> Int32 {
        let script = #"if (open(my $f, "<", $ARGV[0])) { print 0 } else { print $!+0 }"#
        let run = try runAs(user, ["/usr/bin/perl", "-e", script, path])
        return try #require(Int32(run.output), "perl printed \(run.output) \(run.error)")
    }

    /// The `Name:` line of `/proc/<pid>/status`, split on whitespace.
    static func status(_ name: String, of pid: Int32) throws -> [String] {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name + ":") })
        return line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }
}
