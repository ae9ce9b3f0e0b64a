import Foundation
import Glibc
import KeychainCore
import Testing

/// A directory for one peer test: world-traversable (0755), so a child of another user reaches
/// its socket and executables; removed at the end.
final class PeerTestDirectory {
    let path: String

    init() throws {
        path = "/tmp/kc-peer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A copy of the executable `source` named `name` here (0755): a program the test may
    /// change, register or run.
    func copyExecutable(_ source: String = "/bin/sleep", named name: String) throws -> String {
        let target = path + "/" + name
        try ExecutableFile.copy(source, to: target)
        return target
    }

    /// Appends `bytes` to the file at `path` (an ELF executable still runs).
    static func append(_ bytes: String, to path: String) throws {
        // A close-on-exec descriptor: no other test's child keeps the program busy after this.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let data = Array(bytes.utf8)
        try #require(Glibc.write(descriptor, data, data.count) == data.count)
    }
}

/// A listening Unix stream socket, world-connectable, in a test directory.
final class ListeningSocket {
    let path: String
    let descriptor: Int32

    init(in directory: PeerTestDirectory) throws {
        path = directory.path + "/peer.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        try #require(listen(descriptor, 8) == 0)
        try #require(chmod(path, 0o777) == 0)
    }

    deinit { close(descriptor) }

    /// The next connection (waits at most `seconds` for a client).
    func accept(waitingAtMost seconds: Int32 = 60) throws -> Int32 {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        try #require(poll(&entry, 1, seconds * 1000) == 1, "no client connected")
        let connection = Glibc.accept(descriptor, nil, nil)
        try #require(connection >= 0)
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        return connection
    }
}

/// A child process that connects to a socket, then runs another executable in its place (same
/// pid, the connection kept open): the socket's peer is then a process running `executable`.
final class PeerChild {
    let process = Process()
    let executable: String
    /// The daemon's end of the child's connection.
    let connection: Int32

    /// Perl (in every Debian base system) connects, clears close-on-exec and execs (again while
    /// the program is briefly busy: see `ExecutableFile`).
    private static let connectThenExec = """
        use Socket; use Fcntl; use Errno;
        socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
        connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!";
        fcntl($s, F_SETFD, 0) or die "fcntl: $!";
        for my $try (1..500) {
            exec { $ARGV[1] } @ARGV[1..$#ARGV];
            last unless $!{ETXTBSY};
            select(undef, undef, undef, 0.02);
        }
        die "exec: $!";
        """

    /// Starts `executable` with `arguments` as a peer of `socket`, as `user` (uid, gid) when given.
    init(_ socket: ListeningSocket, running executable: String, arguments: [String] = ["120"], as user: (uid: UInt32, gid: UInt32)? = nil) throws {
        self.executable = executable
        var command = ["/usr/bin/perl", "-e", Self.connectThenExec, socket.path, executable] + arguments
        if let user {
            command = ["/usr/bin/setpriv", "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--"] + command
        }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        try process.run()
        connection = try socket.accept()
        // Until the exec is done the process runs Perl.
        var waited = 0
        while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/exe")) != executable {
            try #require(process.isRunning && waited < 6000, "the child never ran \(executable)")
            usleep(10_000)
            waited += 1
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// Ends the child and reaps it (SIGKILL: a child inherits the test runner's blocked signals).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        stop()
        close(connection)
    }
}

/// SHA-256 of a file as `sha256sum` computes it (an implementation independent of the daemon's).
func referenceDigest(of path: String) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let hex = try #require(text.split(separator: " ").first)
    var bytes = Data()
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(try #require(UInt8(hex[index..<next], radix: 16)))
        index = next
    }
    return bytes
}

/// The (device, inode) of the file at `path`.
func fileIdentity(_ path: String) throws -> (device: UInt64, inode: UInt64) {
    var info = stat()
    try #require(stat(path, &info) == 0)
    return (UInt64(info.st_dev), UInt64(info.st_ino))
}

/// A system user for tests that need a peer of another user (created once; needs root).
func otherTestUser() throws -> (uid: UInt32, gid: UInt32) {
    let user = try TestUser.named("kc-peer-test")
    return (user.uid, user.gid)
}

/// The status `body` ends with: nil when it returns, the code of the `KeychainError` it throws,
/// `.internal` for any other error.
func status(of body: () throws -> Void) -> KeychainError.Code? {
    do {
        try body()
        return nil
    } catch let error as KeychainError {
        return error.code
    } catch {
        return .internal
    }
}
