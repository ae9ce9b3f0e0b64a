import Foundation
import KeychainService
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Many clients finding no daemon start one at the same moment (as gpg-agent is started): one
/// daemon serves, and every start reports success once it answers, even the starts whose own
/// daemon lost the race to a daemon that held the lock but was not yet listening.
@Suite("Racing daemon starts")
struct DaemonStartRaceTests {
    /// `keychaind`, built beside the test bundle.
    static let executable: String? = {
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let path = ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("keychaind")
        return access(path, X_OK) == 0 ? path : nil
    }()

    @Test("12 starts racing for one socket, 60 times over: every start succeeds and a daemon answers",
          .enabled(if: executable != nil, "keychaind is built beside the tests"))
    func racingStartsAllSucceed() throws {
        let executable = try #require(Self.executable)
        var failures: [String] = []
        let directory = "/tmp/kcd-race-\(UUID().uuidString.prefix(8))"
        let sockets = (0..<60).map { "\(directory)/\($0)/\(ServiceLocation.socketName)" }
        defer {
            // A starter returns once a daemon answers, while its own daemon may still be on its
            // way to finding the lock taken: every daemon is ended before the directory goes.
            for socket in sockets { Self.end(daemonOf: socket) }
            try? FileManager.default.removeItem(atPath: directory)
        }
        for (round, socket) in sockets.enumerated() {
            let starters = (0..<12).compactMap { _ in
                DetachedProcess.spawn(executable, arguments: ["keychaind", "--socket", socket, "--idle-exit", "5"])
            }
            #expect(starters.count == 12)
            for (index, pid) in starters.enumerated() {
                let status = DetachedProcess.wait(for: pid)
                if status != 0 { failures.append("round \(round), start \(index): status \(status.map(String.init) ?? "killed")") }
            }
            #expect((try? UnixSocket.connect(to: socket)) != nil, "round \(round): no daemon answers")
        }
        #expect(failures.isEmpty, "starts that failed: \(failures)")
    }

    /// Kills the daemon holding the lock beside `socket` until none holds it.
    private static func end(daemonOf socket: String) {
        while true {
            let descriptor = open(socket + ".lock", O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            let held = flock(descriptor, LOCK_EX | LOCK_NB) != 0
            close(descriptor)
            guard held else { return }
            if let text = try? String(contentsOfFile: socket + ".lock", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGKILL)
            }
            usleep(1_000)
        }
    }
}
