import Foundation
import Testing

/// Concurrency (docs/reliability.md §2): 8 processes × 4 threads of mixed operations on one keychain.
///
/// Through the daemon (`KEYCHAIN_MODE=daemon`, which never falls back to opening the keychain
/// in-process) the 32 threads are clients of one `keychaind` of the test's own, which the first
/// of them starts.
///
/// `KEYCHAIN_STRESS_SECONDS` sets the duration (default 10).
@Suite("Concurrency")
struct ConcurrencyTests {
    static let processes = 8
    static let threads = 4

    @Test("8 processes × 4 threads: no busy error reaches a caller, keys stay unique, each thread reads its own writes, and the final state replays the acknowledged logs")
    func mixedOperationsFromManyProcesses() throws {
        let seconds = environmentNumber("KEYCHAIN_STRESS_SECONDS", default: 10)
        let seed = Int.random(in: 1...999_999)
        let directory = try TemporaryDirectory("stress")
        let home = directory.file("home")
        let logs = directory.file("logs")
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: false)

        let daemon = PrivateDaemon()
        let workers = try (0..<Self.processes).map { process in
            try ChildProcess(
                Executables.crashWriter,
                ["stress", "--home", home, "--log-dir", logs, "--process", "\(process)",
                 "--threads", "\(Self.threads)", "--seconds", "\(seconds)", "--seed", "\(seed)"],
                environment: daemon.environment, in: directory.path)
        }
        for (process, worker) in workers.enumerated() {
            #expect(worker.wait(seconds: Double(seconds) + 120), "process \(process) did not finish")
            #expect(worker.exitCode == 0, "process \(process): \(worker.error)")
        }

        var replay = StressReplay()
        for process in 0..<Self.processes {
            for thread in 0..<Self.threads {
                let text = try String(contentsOfFile: "\(logs)/p\(process)-t\(thread).log", encoding: .utf8)
                replay.read(log: text, thread: "p\(process)t\(thread)")
            }
        }
        #expect(replay.threadsFinished == Self.processes * Self.threads)
        if PrivateDaemon.inUse { #expect(daemon.pid != nil, "no keychaind served the workers") }
        #expect(replay.unexpectedStatuses.isEmpty, "statuses that reached callers: \(replay.unexpectedStatuses.prefix(20))")
        #expect(replay.violations.isEmpty, "violations: \(replay.violations.prefix(20))")

        let final = try Executables.runHelper(["verify", "--home", home], environment: daemon.environment, in: directory.path)
        let state = try KeychainState(parsing: final.output)
        #expect(state.unsoundness == nil, "\(state.unsoundness ?? "")")
        let mismatches = replay.mismatches(with: state.items)
        #expect(mismatches.isEmpty, "final state differs from the acknowledged logs: \(mismatches.prefix(20))")
        print(
            """
            concurrency (seed \(seed)): \(Self.processes) processes × \(Self.threads) threads for \(seconds) s: \
            \(replay.operations) operations, \(replay.acknowledgedWrites) acknowledged writes replayed, \
            \(state.items.count) items checked at the end; slowest call \(replay.slowestMilliseconds) ms
            """)
    }
}

/// Reads the stress logs and replays their acknowledged writes.
struct StressReplay {
    /// Each thread's own keys: account → last acknowledged label (nil: deleted).
    private var own: [String: String?] = [:]
    /// Shared keys: acknowledged adds and every acknowledged label.
    private var sharedAdds: [String: Int] = [:]
    private var sharedLabels: [String: Set<String>] = [:]
    private(set) var unexpectedStatuses: [String] = []
    private(set) var violations: [String] = []
    private(set) var operations = 0
    private(set) var acknowledgedWrites = 0
    private(set) var slowestMilliseconds = 0
    private(set) var threadsFinished = 0

    mutating func read(log text: String, thread: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "A" where fields.count == 4:
                acknowledgedWrites += 1
                let (kind, account, label) = (fields[1], fields[2], fields[3])
                if account.hasPrefix("shared-") {
                    if kind == "add" { sharedAdds[account, default: 0] += 1 }
                    sharedLabels[account, default: []].insert(label)
                } else {
                    if !account.hasPrefix(thread + "k") { violations.append("\(thread) wrote \(account)") }
                    own[account] = kind == "delete" ? .some(nil) : .some(label)
                }
            case "U": unexpectedStatuses.append("\(thread): \(line)")
            case "X": violations.append("\(thread): \(line)")
            case "S" where fields.count == 3:
                threadsFinished += 1
                operations += Int(fields[1]) ?? 0
                slowestMilliseconds = max(slowestMilliseconds, Int(fields[2]) ?? 0)
            default: violations.append("\(thread): unreadable line \(line)")
            }
        }
    }

    /// Differences between the final items (account → label) and what the logs imply.
    func mismatches(with items: [String: String]) -> [String] {
        var found: [String] = []
        for (account, label) in own where items[account] != label {
            found.append("\(account): \(items[account] ?? "absent"), log says \(label ?? "deleted")")
        }
        for (account, adds) in sharedAdds where adds > 1 {
            found.append("\(account) was added \(adds) times with no delete between")
        }
        for (account, label) in items {
            if account.hasPrefix("shared-") {
                if sharedAdds[account] != 1 { found.append("\(account) exists without one acknowledged add") }
                if sharedLabels[account]?.contains(label) != true {
                    found.append("\(account) holds \(label), which no acknowledged write wrote")
                }
            } else if own[account] == nil {
                found.append("\(account) exists but no acknowledged write created it")
            }
        }
        for (account, adds) in sharedAdds where adds == 1 && items[account] == nil {
            found.append("\(account) was added but is gone")
        }
        return found
    }
}
