import Foundation
import KeychainCore
import KeychainService
import Testing

/// Clients that misbehave cannot take keychaind down or stall it for others.
@Suite("keychaind against bad clients", .serialized)
struct DaemonRobustnessTests {
    /// One request on a raw connection; the answer.
    static func exchange(_ socket: UnixSocket, _ request: ServiceRequest) throws -> ServiceResponse {
        try socket.send(try ServiceMessageCoding.frame(request))
        var buffer = Data()
        while true {
            if let payload = try ServiceMessageCoding.nextPayload(from: &buffer) {
                return try ServiceMessageCoding.response(fromPayload: payload)
            }
            guard try socket.receive(into: &buffer) else { throw KeychainError(.notAvailable, "closed") }
        }
    }

    /// Reads until the daemon closes the connection; what it sent. A daemon that keeps the
    /// connection open fails the read after 10 s (`SO_RCVTIMEO`) instead of hanging the test.
    static func readToEnd(_ socket: UnixSocket) throws -> Data {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(socket.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = Data()
        while try socket.receive(into: &buffer) {}
        return buffer
    }

    /// Whether an ordinary client is still served: it can store and read an item.
    static func stillServes(_ fixture: DaemonFixture, _ name: String) throws -> Bool {
        try fixture.app(DaemonFixture.testClient, "add", "svc", name, "v") == "0"
            && fixture.app(DaemonFixture.testClient, "find", "svc", name) == "0 v"
    }

    @Test("bytes that are not frames, a frame over the limit and another protocol version get one refusal, then the connection closes; others go on")
    func hostileFrames() throws {
        let fixture = try DaemonFixture()
        var oversized = Data([0x4B, 0x43, 0, UInt8(ServiceFrame.version)])
        oversized.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF])  // 4 GiB announced, nothing sent
        let otherVersion = Data([0x4B, 0x43, 0, 9, 0, 0, 0, 0])
        for (index, bytes) in [Data("GET / HTTP/1.1\r\n\r\n".utf8), oversized, otherVersion].enumerated() {
            let socket = try UnixSocket.connect(to: fixture.socket)
            try socket.send(bytes)
            var answer = try Self.readToEnd(socket)
            let payload = try #require(try ServiceMessageCoding.nextPayload(from: &answer))
            guard case .failure(let error) = try ServiceMessageCoding.response(fromPayload: payload) else {
                Issue.record("no refusal for input \(index)")
                continue
            }
            #expect(error.code == .param)
            #expect(answer.isEmpty)
            #expect(try Self.stillServes(fixture, "after-\(index)"))
        }
    }

    @Test("a client that sends half a frame, or a request and leaves, does not disturb the daemon")
    func clientsThatLeave() throws {
        let fixture = try DaemonFixture()
        #expect(try Self.stillServes(fixture, "first"))
        let frame = try ServiceMessageCoding.frame(
            ServiceRequest(keychainPath: fixture.dataHome + "/swift-keychain/login.keychain-db", operation: .status))
        do {
            let socket = try UnixSocket.connect(to: fixture.socket)
            try socket.send(frame.prefix(frame.count / 2))
        }
        do {
            let socket = try UnixSocket.connect(to: fixture.socket)
            try socket.send(frame)
        }
        #expect(try Self.stillServes(fixture, "second"))
    }

    @Test("a client that never reads its answers holds one answer in the daemon and stalls no one else")
    func clientThatNeverReads() throws {
        let fixture = try DaemonFixture()
        let path = fixture.dataHome + "/swift-keychain/login.keychain-db"
        let admin = try UnixSocket.connect(to: fixture.socket)
        guard case .done = try Self.exchange(admin, ServiceRequest(keychainPath: path, operation: .open(create: true))) else {
            Issue.record("open failed")
            return
        }
        // A 120 kB secret (an argument can be no longer), then 600 requests for it sent at once and
        // never read: 72 MB of answers.
        #expect(try fixture.app(DaemonFixture.testClient, "add", "big", "me", String(repeating: "x", count: 120_000)) == "0")
        var search = ItemRequest(itemClass: .genericPassword)
        search.attributes = [.service: .string("big"), .account: .string("me")]
        search.returns = [.data]
        let frame = try ServiceMessageCoding.frame(ServiceRequest(keychainPath: path, operation: .search(search)))
        let greedy = try UnixSocket.connect(to: fixture.socket)
        var nonblocking = fcntl(greedy.descriptor, F_GETFL)
        nonblocking |= O_NONBLOCK
        _ = fcntl(greedy.descriptor, F_SETFL, nonblocking)
        var sent = 0
        for _ in 0..<600 {
            guard (try? greedy.send(frame)) != nil else { break }
            sent += 1
        }
        #expect(sent > 0)
        let before = try Self.residentBytes(of: fixture)
        // Others are served meanwhile.
        #expect(try Self.stillServes(fixture, "other"))
        #expect(try fixture.security("find-generic-password", "-s", "svc", "-a", "other", "-w").output == "v\n")
        // The daemon holds about the answer it is sending, not the 72 MB asked for.
        let after = try Self.residentBytes(of: fixture)
        #expect(after - before < 32 << 20, "resident memory grew by \(after - before) bytes")
    }

    /// The daemon's resident memory (`VmRSS`).
    static func residentBytes(of fixture: DaemonFixture) throws -> Int {
        let pid = try #require(fixture.daemon?.processIdentifier)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        return kilobytes * 1024
    }

    @Test("systemd's socket activation: the daemon serves the listening socket it is passed as descriptor 3")
    func socketActivation() throws {
        let fixture = try DaemonFixture()
        fixture.killDaemon()
        unlink(fixture.socket)
        let listener = try UnixListener(path: fixture.socket)
        // As systemd does: descriptor 3 is the socket, LISTEN_PID the daemon's own pid.
        let script = "LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" --foreground --idle-exit 0"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, listener.descriptor, 3)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let environment = fixture.environment.map { "\($0.key)=\($0.value)" }
        let words: [String] = ["/bin/sh", "-c", script, DaemonFixture.products + "/keychaind"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) == 0)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        #expect(try Self.stillServes(fixture, "activated"))
        let info = try fixture.security("show-keychain-info")
        #expect(info.output == "device key: in a file (not bound to a TPM)\nheld by keychaind (pid \(pid)): unlocked (no password)\n")
    }

    @Test("bytes written on a caller's connection by another process (a forked child) are refused and the connection closes")
    func anotherProcessOnTheConnection() throws {
        let fixture = try DaemonFixture()
        #expect(try fixture.app(DaemonFixture.testClient, "add", "svc", "me", "v") == "0")
        let request = ServiceRequest(keychainPath: fixture.dataHome + "/swift-keychain/" + KeychainLocation.defaultKeychainName, operation: .status)
        let frame = try ServiceMessageCoding.frame(request)
        // The process that connects sends once and is answered; then a child it forks writes the
        // same request on the same connection; the parent reads what follows until the end.
        let script = """
            use Socket; use POSIX ();
            socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
            connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!";
            my $frame = pack("H*", $ARGV[1]);
            # A daemon that never answers or never closes ends the reads after 10 s (signals such
            # as SIGALRM are blocked in children of the test runner).
            setsockopt($s, SOL_SOCKET, SO_RCVTIMEO, pack("l!l!", 10, 0)) or die "setsockopt: $!";
            sub frame_from { my $data = ''; while (length($data) < 8 || length($data) < 8 + unpack("N", substr($data, 4, 4))) {
                sysread($s, my $chunk, 65536) or die "closed\n"; $data .= $chunk; } return $data; }
            syswrite($s, $frame) or die "write: $!";
            print "connector ", unpack("H*", frame_from()), "\n";
            my $child = fork(); die "fork: $!" unless defined $child;
            if ($child == 0) { syswrite($s, $frame); POSIX::_exit(0); }
            waitpid($child, 0);
            my $rest = ''; while (sysread($s, my $chunk, 65536)) { $rest .= $chunk; }
            print "after ", unpack("H*", $rest), "\n";
            """
        let run = try fixture.run("/usr/bin/perl", ["-e", script, fixture.socket, WireVectorTests.hex(frame)])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n")
        try #require(lines.count == 2, "\(run.output)")
        var first = WireVectorTests.bytes(String(lines[0].dropFirst("connector ".count)))
        guard case .status? = try ServiceMessageCoding.nextPayload(from: &first).map(ServiceMessageCoding.response(fromPayload:)) else {
            Issue.record("the process that connected was not served: \(lines[0])")
            return
        }
        // The child's request: refused with errSecAuthFailed, then the end of the stream (the
        // loop above reads until the daemon closes the connection).
        var after = WireVectorTests.bytes(String(lines[1].dropFirst("after ".count)))
        let refusal = try ServiceMessageCoding.nextPayload(from: &after).map(ServiceMessageCoding.response(fromPayload:))
        guard case .failure(let error)? = refusal else {
            Issue.record("the child's request was not refused: \(lines[1])")
            return
        }
        #expect(error.code == .authFailed)
        #expect(after.isEmpty)
        #expect(try Self.stillServes(fixture, "after-fork"))
    }

    @Test("a program that forks keeps working: the child makes its own connection, the parent keeps its own")
    func forkedChildConnectsItself() throws {
        let fixture = try DaemonFixture()
        #expect(try fixture.app(DaemonFixture.testClient, "add", "svc", "me", "v") == "0")
        let lines = try fixture.app(DaemonFixture.testClient, "find-around-fork", "svc", "me").split(separator: "\n")
        #expect(lines == ["0 v", "0 v", "0 v"])
    }
}
