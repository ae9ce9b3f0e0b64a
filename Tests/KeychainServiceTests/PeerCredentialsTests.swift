import Foundation
import Glibc
import KeychainCore
import Testing

@testable import KeychainDaemon

/// The daemon learns who a client is from the kernel: the connecting process's pid, user and
/// group, the executable it runs (read through the running file, digested once per version of
/// the file), and a hold on the process so that a pid reused by another process is refused.
@Suite("Peer credentials")
struct PeerCredentialsTests {
    /// Whether this kernel offers `SO_PEERPIDFD` (Linux 6.5).
    static var kernelOffersPidfd: Bool {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let parts = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        return parts.count == 2 && (parts[0], parts[1]) >= (6, 5)
    }

    @Test("a connected child's pid, user, group and executable (path, device, inode, SHA-256 of its content) are read from the socket")
    func readsPeer() throws {
        let directory = try PeerTestDirectory()
        let program = try directory.copyExecutable(named: "client-app")
        let socket = try ListeningSocket(in: directory)
        let child = try PeerChild(socket, running: program)
        let peer = try PeerCredentials(socket: child.connection)
        #expect(peer.pid == child.pid)
        #expect(peer.uid == getuid())
        #expect(peer.gid == getgid())
        #expect(peer.isHeldByPidfd == Self.kernelOffersPidfd)
        let executable = try peer.executable(digests: ExecutableDigestCache())
        #expect(executable.path == program)
        let identity = try fileIdentity(program)
        #expect(executable.device == identity.device)
        #expect(executable.inode == identity.inode)
        #expect(executable.digest == (try referenceDigest(of: program)))
        #expect(executable.digest != (try referenceDigest(of: "/bin/true")))
    }

    @Test("the executable is read through the running file: renamed, and another file put at its path, it is still the one digested")
    func readsRunningFileNotPath() throws {
        let directory = try PeerTestDirectory()
        let program = try directory.copyExecutable(named: "client-app")
        let socket = try ListeningSocket(in: directory)
        let child = try PeerChild(socket, running: program)
        let original = try referenceDigest(of: program)
        let identity = try fileIdentity(program)
        try FileManager.default.moveItem(atPath: program, toPath: directory.path + "/moved-away")
        _ = try directory.copyExecutable("/bin/true", named: "client-app")
        let executable = try PeerCredentials(socket: child.connection).executable(digests: ExecutableDigestCache())
        #expect(executable.digest == original)
        #expect(executable.inode == identity.inode)
        #expect(executable.path == directory.path + "/moved-away")
    }

    @Test("a peer that exited before it was identified is refused (errSecAuthFailed), with a pidfd and without")
    func exitedPeerRefused() throws {
        let directory = try PeerTestDirectory()
        let program = try directory.copyExecutable(named: "client-app")
        let socket = try ListeningSocket(in: directory)
        for usePidfd in [true, false] {
            let child = try PeerChild(socket, running: program)
            child.stop()
            #expect(status { _ = try PeerCredentials(socket: child.connection, usePidfd: usePidfd).executable(digests: ExecutableDigestCache()) } == .authFailed)
        }
    }

    @Test("a pid whose process exited while it was being identified is refused, though /proc shows another process under that pid")
    func recycledPidRefusedWithPidfd() throws {
        try #require(Self.kernelOffersPidfd, "this kernel has no SO_PEERPIDFD")
        let directory = try PeerTestDirectory()
        let program = try directory.copyExecutable(named: "client-app")
        let socket = try ListeningSocket(in: directory)
        let child = try PeerChild(socket, running: program)
        // A /proc where the peer's pid names another program: what a reused pid would show.
        let proc = directory.path + "/proc"
        try FileManager.default.createDirectory(atPath: proc + "/\(child.pid)", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: proc + "/\(child.pid)/exe", withDestinationPath: "/bin/true")
        let peer = try PeerCredentials(socket: child.connection, usePidfd: true, proc: proc)
        #expect(try peer.executable(digests: ExecutableDigestCache()).path == "/bin/true")
        child.stop()
        #expect(status { _ = try peer.executable(digests: ExecutableDigestCache()) } == .authFailed)
        #expect(status { try peer.requireStillRunning() } == .authFailed)
    }

    @Test("without a pidfd, a pid whose start time changed between two readings is another process: refused")
    func recycledPidRefusedByStartTime() throws {
        let directory = try PeerTestDirectory()
        let program = try directory.copyExecutable(named: "client-app")
        let socket = try ListeningSocket(in: directory)
        let child = try PeerChild(socket, running: program)
        let proc = directory.path + "/proc"
        let processDirectory = proc + "/\(child.pid)"
        try FileManager.default.createDirectory(atPath: processDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: processDirectory + "/exe", withDestinationPath: program)
        // A command name with spaces and parentheses, as `comm` may have.
        func writeStat(startTime: UInt64) throws {
            let fields = ["S"] + (4...21).map(String.init) + [String(startTime), "0", "0"]
            try Data("\(child.pid) (odd) name) \(fields.joined(separator: " "))\n".utf8)
                .write(to: URL(fileURLWithPath: processDirectory + "/stat"))
        }
        try writeStat(startTime: 4242)
        let peer = try PeerCredentials(socket: child.connection, usePidfd: false, proc: proc)
        #expect(!peer.isHeldByPidfd)
        #expect(try peer.executable(digests: ExecutableDigestCache()).path == program)
        try writeStat(startTime: 4243)
        #expect(status { _ = try peer.executable(digests: ExecutableDigestCache()) } == .authFailed)
    }

    @Test("the start time is field 22 of /proc/<pid>/stat, counted after the command name")
    func startTimeOfLiveProcess() throws {
        let own = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let afterName = own[own.index(after: try #require(own.lastIndex(of: ")")))...].split(separator: " ")
        #expect(try PeerProcess.startTime(of: getpid()) == UInt64(afterName[19]))
        #expect(throws: ProcessCallError.self) { try PeerProcess.startTime(of: Int32.max) }
    }

    @Test("a grant owner's process has ended when no process has its pid, or the one that has it started at another time")
    func grantOwnerEnded() throws {
        let started = try PeerProcess.startTime(of: getpid())
        let uid = getuid()
        #expect(!PeerCredentials.hasEnded(grantOwner: "\(uid):\(getpid()):\(started)"))
        #expect(PeerCredentials.hasEnded(grantOwner: "\(uid):\(getpid()):\(started + 1)"))
        #expect(PeerCredentials.hasEnded(grantOwner: "\(uid):\(Int32.max):\(started)"))
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        let pid = child.processIdentifier
        let childStarted = try? PeerProcess.startTime(of: pid)
        child.waitUntilExit()
        if let childStarted { #expect(PeerCredentials.hasEnded(grantOwner: "\(uid):\(pid):\(childStarted)")) }
        // A name of another shape is never taken for an ended process.
        #expect(!PeerCredentials.hasEnded(grantOwner: "someone"))
    }

    @Test("an executable is digested once per version of its file; a changed file is digested again")
    func digestCachedPerFileVersion() throws {
        let directory = try PeerTestDirectory()
        let program = try directory.copyExecutable(named: "client-app")
        let socket = try ListeningSocket(in: directory)
        let digests = ExecutableDigestCache()
        var seen: [Data] = []
        for _ in 0..<2 {
            let child = try PeerChild(socket, running: program)
            seen.append(try PeerCredentials(socket: child.connection).executable(digests: digests).digest)
        }
        #expect(digests.computedCount == 1)
        #expect(seen[0] == seen[1])
        try PeerTestDirectory.append("a new version", to: program)
        let child = try PeerChild(socket, running: program)
        let changed = try PeerCredentials(socket: child.connection).executable(digests: digests).digest
        #expect(digests.computedCount == 2)
        #expect(changed == (try referenceDigest(of: program)))
        #expect(changed != seen[0])
    }

    @Test("a descriptor that is not a connected socket has no peer: errSecAuthFailed")
    func notASocket() throws {
        let descriptor = open("/dev/null", O_RDONLY)
        defer { close(descriptor) }
        #expect(status { _ = try PeerCredentials(socket: descriptor) } == .authFailed)
    }
}
