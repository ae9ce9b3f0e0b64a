import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A throw-away PostgreSQL 15 cluster for one test: `initdb` in a temporary directory, `pg_ctl`
/// on a free loopback port, trust authentication on loopback only.
///
/// PostgreSQL refuses to run as root, so when the test runs as root (CI does) the cluster runs as
/// a dedicated service user, `keychain-pg`, created on first use (`useradd`). `stop()` (which the
/// test calls in a `defer`) ends it with `pg_ctl stop -m immediate` and, if the postmaster is
/// still there (a child of the test runner may have SIGTERM blocked), SIGKILL.
final class PostgresServer: @unchecked Sendable {
    /// The user the cluster runs as when the tests run as root.
    static let serviceUser = "keychain-pg"
    /// PostgreSQL's programs.
    static let binaries = "/usr/lib/postgresql/15/bin"

    /// The cluster's directory (data, socket, log).
    let directory: String
    /// The loopback port it listens on.
    let port: Int
    private var stopped = false

    /// A libpq connection string for `user` on `database`.
    func conninfo(user: String = "postgres", database: String = "postgres") -> String {
        "host=127.0.0.1 port=\(port) user=\(user) dbname=\(database) connect_timeout=5"
    }

    /// Creates and starts a cluster.
    init() throws {
        let base = try Self.makeDirectory()
        directory = base
        let runAs = getuid() == 0 ? Self.serviceUser : nil
        if let runAs {
            try Self.ensureUser(runAs)
            try Self.run("/bin/chown", ["-R", "\(runAs):\(runAs)", base])
        }
        try Self.run(Self.binaries + "/initdb", ["-D", base + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], as: runAs)
        var lastError: (any Error)?
        for _ in 0..<5 {
            let candidate = try Self.freePort()
            do {
                try Self.run(
                    Self.binaries + "/pg_ctl",
                    ["-D", base + "/data", "-o", "-p \(candidate) -c listen_addresses=127.0.0.1 -k \(base) -c fsync=off",
                     "-l", base + "/server.log", "-w", "-t", "60", "start"],
                    as: runAs)
                port = candidate
                return
            } catch {
                lastError = error
            }
        }
        try? FileManager.default.removeItem(atPath: base)
        throw lastError ?? Failure(what: "PostgreSQL did not start")
    }

    deinit { stop() }

    /// Stops the server and keeps its data (`resume()` starts it again on the same port).
    func pause() throws {
        let runAs = getuid() == 0 ? Self.serviceUser : nil
        try Self.run(Self.binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "30", "stop"], as: runAs)
    }

    /// Starts a paused server again.
    func resume() throws {
        let runAs = getuid() == 0 ? Self.serviceUser : nil
        try Self.run(
            Self.binaries + "/pg_ctl",
            ["-D", directory + "/data", "-o", "-p \(port) -c listen_addresses=127.0.0.1 -k \(directory) -c fsync=off",
             "-l", directory + "/server.log", "-w", "-t", "60", "start"],
            as: runAs)
    }

    /// Stops the cluster (immediately, then by SIGKILL if needed) and removes its directory.
    func stop() {
        guard !stopped else { return }
        stopped = true
        let runAs = getuid() == 0 ? Self.serviceUser : nil
        try? Self.run(Self.binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "-t", "10", "stop"], as: runAs)
        if let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let pid = pid_t(first), pid > 0
        {
            kill(pid, SIGKILL)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct Failure: Error, CustomStringConvertible {
        let what: String
        var description: String { what }
    }

    // MARK: - Private

    /// A short directory under /tmp (a Unix socket path must stay under 108 bytes), readable by
    /// the service user.
    private static func makeDirectory() throws -> String {
        var template = Array("/tmp/kspg-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(what: "mkdtemp failed")
        }
        let path = String(cString: made)
        chmod(path, 0o755)
        return path
    }

    /// Creates `user` (a system user without a home or a login shell) unless it exists.
    private static func ensureUser(_ user: String) throws {
        if getpwnam(user) != nil { return }
        do {
            try run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
        } catch {
            // Another test process may have created it meanwhile.
            guard getpwnam(user) != nil else { throw error }
        }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(what: "socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw Failure(what: "bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a program (as `user` through runuser when given) and waits; fails on a non-zero exit.
    ///
    /// posix_spawn and waitpid, not Foundation's `Process`: `pg_ctl` leaves the postmaster running
    /// with the descriptors it inherited, and `Process` could wait for those to close.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], as user: String? = nil) throws -> String {
        let argv = user.map { ["/usr/sbin/runuser", "-u", $0, "--", program] + arguments } ?? [program] + arguments
        let output = "/tmp/kspg-run-\(UUID().uuidString)"
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let environment = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"]
        let cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var child: pid_t = 0
        guard posix_spawn(&child, argv[0], &actions, nil, cArguments, cEnvironment) == 0 else {
            throw Failure(what: "cannot start \(argv[0])")
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(what: "\(program) failed (\(status)): \(text)") }
        return text
    }
}
