import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A throw-away PostgreSQL 15 cluster for the sync rows, made as the sync tests make theirs:
/// `initdb` in a temporary directory, `pg_ctl` on a free loopback port, trust authentication on
/// loopback only, `fsync=off` (the rows measure sync, not the server's disk); as the service user
/// `keychain-pg` (created if needed) when the benchmark runs as root, since PostgreSQL refuses to.
final class BenchPostgres {
    /// PostgreSQL's programs (Debian's postgresql-15).
    static let binaries = "/usr/lib/postgresql/15/bin"
    static let serviceUser = "keychain-pg"

    /// Whether PostgreSQL's programs are installed.
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binaries + "/pg_ctl") }

    let directory: String
    let port: Int
    private let runAs: String?

    /// A libpq connection string for `user`.
    func conninfo(user: String) -> String { "host=127.0.0.1 port=\(port) user=\(user) dbname=postgres connect_timeout=5" }

    init() throws {
        var template = Array("/tmp/kbpg-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw BenchError("mkdtemp failed") }
        directory = String(cString: made)
        chmod(directory, 0o755)
        runAs = getuid() == 0 ? Self.serviceUser : nil
        if let runAs {
            if getpwnam(runAs) == nil {
                _ = try? Self.run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", runAs])
            }
            try Self.run("/bin/chown", ["-R", "\(runAs):\(runAs)", directory])
        }
        try Self.run(Self.binaries + "/initdb", ["-D", directory + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], as: runAs)
        port = try Self.freePort()
        try Self.run(
            Self.binaries + "/pg_ctl",
            ["-D", directory + "/data", "-o", "-p \(port) -c listen_addresses=127.0.0.1 -k \(directory) -c fsync=off",
             "-l", directory + "/server.log", "-w", "-t", "60", "start"],
            as: runAs)
    }

    /// Stops the cluster and removes its directory.
    func stop() {
        _ = try? Self.run(Self.binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "-t", "10", "stop"], as: runAs)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a program (as `user` through runuser) with its output in a file (the postmaster
    /// keeps descriptors it inherits), and waits.
    @discardableResult
    private static func run(_ program: String, _ arguments: [String], as user: String? = nil) throws -> String {
        let argv = user.map { ["/usr/sbin/runuser", "-u", $0, "--", program] + arguments } ?? [program] + arguments
        let output = "/tmp/kbpg-run-\(UUID().uuidString)"
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
        guard posix_spawn(&child, argv[0], &actions, nil, cArguments, cEnvironment) == 0 else { throw BenchError("cannot start \(argv[0])") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw BenchError("\(program) failed (\(status)): \(text)") }
        return text
    }
}

/// A failure of the benchmark's own setup.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
