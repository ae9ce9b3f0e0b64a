#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A full disk (docs/reliability.md §1): writes fail with a disk status, nothing stored is lost,
/// and the keychain stays readable.
@Suite("Full disk")
struct FullDiskTests {
    /// The statuses a write may fail with on a full disk: errSecDiskFull, errSecIO, errSecAllocate.
    static let diskStatuses: Set<Int32> = [-34, -36, -108]

    @Test("a file-size limit (an unprivileged full disk) fails writes with errSecDiskFull, errSecIO or errSecAllocate and loses nothing")
    func fileSizeLimit() throws {
        let directory = try TemporaryDirectory("full-disk")
        try fillAndCheck(home: directory.file("home"), headroom: 256 * 1024, in: directory)
    }

    @Test(
        "a full filesystem (a 1 MiB tmpfs) fails writes with errSecDiskFull, errSecIO or errSecAllocate and loses nothing",
        .enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs CAP_SYS_ADMIN"))
    func fullFilesystem() throws {
        let directory = try TemporaryDirectory("full-tmpfs")
        let mount = try SmallFilesystem(at: directory.file("mnt"), bytes: 1 << 20)
        defer { mount.unmount() }
        try fillAndCheck(home: mount.path + "/home", headroom: nil, in: directory)
    }

    /// Fills the keychain at `home`, then checks the fill's log and a fresh process's view.
    ///
    /// Through the daemon the helpers reach a daemon of the test's own: the filler limits the
    /// daemon's file size (the process that writes the files), and the daemon is restarted
    /// without the limit before the last writer.
    private func fillAndCheck(home: String, headroom: Int?, in directory: TemporaryDirectory) throws {
        let daemon = PrivateDaemon()
        let log = directory.file("fill.log")
        var arguments = ["fill", "--home", home, "--log", log, "--populate", "12"]
        if let headroom { arguments += ["--headroom", "\(headroom)"] }
        let filler = try Executables.runHelper(arguments, environment: daemon.environment, in: directory.path)
        try #require(filler.exitCode == 0, "the filler failed: \(filler.error)")

        var expected: [String: String] = [:]
        var refusals: [(String, Int32)] = []
        var reads: [String: String] = [:]
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            switch fields[0] {
            case "A", "U": expected[fields[1]] = fields[2]
            case "D": expected[fields[1]] = nil
            case "F": refusals.append((fields[1], Int32(fields[2]) ?? 0))
            case "V": reads[fields[1]] = fields[3] == "ok" ? fields[2] : "torn"
            case "N": reads[fields[1]] = "status \(fields[2])"
            case "limit": break
            default: Issue.record("unexpected log line \(line)")
            }
        }
        #expect(refusals.first?.0 == "add", "the disk never filled up: \(refusals)")
        for (operation, status) in refusals {
            #expect(Self.diskStatuses.contains(status), "\(operation) failed with \(status)")
        }
        // While the disk was full, every item stored before it filled still read back whole.
        for (account, label) in expected where account.hasPrefix("pre-") {
            #expect(reads[account] == label, "\(account) read \(reads[account] ?? "nothing") on the full disk")
        }

        // A fresh process (the disk still full) finds exactly the acknowledged items.
        let verify = try Executables.runHelper(["verify", "--home", home], environment: daemon.environment, in: directory.path)
        let state = try KeychainState(parsing: verify.output)
        #expect(state.unsoundness == nil, "\(state.unsoundness ?? "")")
        #expect(state.items == expected)
        if headroom != nil {
            // Without the limit the keychain takes writes again.
            daemon.stop()
            let writer = try Executables.runHelper(
                ["crash-writer", "--home", home, "--log", directory.file("after.log"), "--state",
                 directory.file("after.state"), "--seed", "1", "--ops", "10"], environment: daemon.environment, in: directory.path)
            #expect(writer.exitCode == 0, "\(writer.error)")
            let log = (try? String(contentsOfFile: directory.file("after.log"), encoding: .utf8)) ?? ""
            #expect(log.contains("\nA "), "no write succeeded once the disk had room: \(log)")
        }
        print(
            """
            full disk (\(headroom.map { "RLIMIT_FSIZE, \($0 / 1024) KiB headroom" } ?? "1 MiB tmpfs")): \
            \(expected.count) acknowledged items intact; refusals \(refusals.map { "\($0.0) \($0.1)" })
            """)
    }
}

/// A tmpfs of a fixed size, mounted for one test (root with CAP_SYS_ADMIN only).
struct SmallFilesystem {
    let path: String

    init(at path: String, bytes: Int) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            throw ChildProcessError("mount tmpfs failed (errno \(errno))")
        }
    }

    func unmount() {
        umount2(path, Int32(MNT_DETACH))
    }

    /// Whether this process may mount a tmpfs (checked once by mounting and unmounting one).
    static let canMount: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("tmpfs-probe-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard let mounted = try? SmallFilesystem(at: probe, bytes: 1 << 16) else { return false }
        mounted.unmount()
        return true
    }()
}
