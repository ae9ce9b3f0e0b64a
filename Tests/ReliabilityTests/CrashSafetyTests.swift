import Foundation
import Testing

/// Crash safety (docs/reliability.md §1): a writer process killed with SIGKILL at random points.
///
/// Through the daemon (`KEYCHAIN_MODE=daemon`) the writer reaches the keychain through a
/// `keychaind` of the test's own, and each kill of the writer is followed at once by a SIGKILL
/// of the daemon, which is then carrying out the writer's last request or idle: the crash test
/// of the daemon itself. The next writer starts a new daemon. A write the daemon acknowledged
/// must survive its crash; the one in flight is applied whole or not at all.
///
/// `KEYCHAIN_CRASH_KILLS` sets the number of kills (default 200; the long mode runs 5000);
/// `KEYCHAIN_CRASH_SEED` replays a run (the seed is printed).
@Suite("Crash safety")
struct CrashSafetyTests {
    @Test("a writer killed with SIGKILL at random points never loses an acknowledged write nor leaves a torn or undecryptable item")
    func killedWriterLosesNothingAcknowledged() throws {
        let kills = environmentNumber("KEYCHAIN_CRASH_KILLS", default: 200)
        let seed = UInt64(environmentNumber("KEYCHAIN_CRASH_SEED", default: Int.random(in: 1...999_999)))
        let directory = try TemporaryDirectory("crash")
        let home = directory.file("home")
        var model = CrashLogModel()
        var timing = SplitMix(seed: seed)
        var earlyKills = 0
        let start = Date()
        let daemon = PrivateDaemon()
        var daemonKills = 0

        for cycle in 0..<kills {
            let statePath = directory.file("state-\(cycle)")
            let logPath = directory.file("log-\(cycle)")
            let writer = try ChildProcess(
                Executables.crashWriter,
                ["crash-writer", "--home", home, "--log", logPath, "--state", statePath,
                 "--seed", "\(seed &* 100_000 &+ UInt64(cycle))"],
                environment: daemon.environment, in: directory.path)
            // One kill in ten lands anywhere from the start (while the keychain opens or is
            // created); the others during the writer's operations.
            if timing.below(10) == 0 {
                earlyKills += 1
                usleep(UInt32(timing.below(40_000)))
            } else {
                let deadline = Date().addingTimeInterval(30)
                while !FileManager.default.fileExists(atPath: statePath) && !writer.hasExited && Date() < deadline {
                    usleep(1000)
                }
                usleep(UInt32(timing.below(120_000)))
            }
            writer.kill()
            if daemon.crash() { daemonKills += 1 }
            writer.wait()
            guard writer.terminatingSignal == SIGKILL else {
                Issue.record("cycle \(cycle) (seed \(seed)): the writer ended on its own: \(writer.error)")
                return
            }
            do {
                if let state = try? String(contentsOfFile: statePath, encoding: .utf8) {
                    try model.check(state: try KeychainState(parsing: state))
                }
                if let log = try? String(contentsOfFile: logPath, encoding: .utf8) {
                    try model.replay(log: log)
                }
            } catch {
                Issue.record("cycle \(cycle) (seed \(seed)): \(error)")
                return
            }
            try? FileManager.default.removeItem(atPath: statePath)
            try? FileManager.default.removeItem(atPath: logPath)
        }

        // A last, unkilled look: the final state must match as well.
        let final = try Executables.runHelper(["verify", "--home", home], environment: daemon.environment, in: directory.path)
        try model.check(state: try KeychainState(parsing: final.output))
        print(
            """
            crash safety (seed \(seed)): \(kills) SIGKILLs (\(earlyKills) early) in \
            \(Int(Date().timeIntervalSince(start))) s; \(model.acknowledgedWrites) acknowledged writes, \
            \(model.refusedWrites) refused writes and \(model.checkedReads) reads checked against the log; \
            \(model.checkedStates) states with \(model.checkedItems) items checked after kills; \
            in-flight writes found applied \(model.inFlightApplied), not applied \(model.inFlightLost); \
            \(daemonKills) SIGKILLs of keychaind
            """)
        // Through the daemon, the kills that land after the writer started it kill it too.
        if PrivateDaemon.inUse { #expect(daemonKills >= kills * 8 / 10) }
        #expect(model.checkedStates >= kills * 8 / 10)
        #expect(model.acknowledgedWrites > kills)
    }
}

/// SplitMix64, as the helper uses it.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
