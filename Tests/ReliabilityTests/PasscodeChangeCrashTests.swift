import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore

/// Crash safety of passcode changes (docs/reliability.md §6): a process changing the passcode
/// of a keychain of many items, again and again, is killed with SIGKILL at random points; each
/// time the keychain must open with the last passcode it acknowledged or the one in flight, and
/// every item must read back. Through the daemon (`KEYCHAIN_MODE=daemon`) the process changing
/// the passcode is `keychaind` (a daemon of the test's own, which the writer starts): each kill
/// of the writer is followed at once by a SIGKILL of the daemon, mid-change or idle, and the next
/// writer starts a new one.
///
/// `KEYCHAIN_REKEY_KILLS` sets the number of kills (default 25); `KEYCHAIN_REKEY_SEED` replays
/// a run's timing (the seed is printed).
@Suite("Crash safety of passcode changes")
struct PasscodeChangeCrashTests {
    static let items = 700
    static let options = KeychainOptions(passcodeIterations: 1_000, backupWorkFactor: 10)
    /// The longest a writer runs before it is killed, in microseconds. The daemon derives each
    /// passcode at the calibrated cost (about 80 ms an attempt: the helper's fast derivation is an
    /// in-process setting), so through it a change takes about ten times longer and the kills are
    /// spread over a window ten times wider, to land in as many parts of a change.
    static let killWindow = PrivateDaemon.inUse ? 3_000_000 : 300_000

    @Test("a process killed while changing the passcode leaves a keychain that opens with the old or the new passcode, every item intact")
    func killedPasscodeChange() throws {
        let kills = environmentNumber("KEYCHAIN_REKEY_KILLS", default: 25)
        let seed = UInt64(environmentNumber("KEYCHAIN_REKEY_SEED", default: Int.random(in: 1...999_999)))
        let directory = try TemporaryDirectory("rekey-crash")
        let home = directory.file("home")
        let path = home + "/swift-keychain/login.keychain-db"
        var timing = SplitMix(seed: seed)
        var current = 0
        var changesAcknowledged = 0
        var landedInFlight = 0
        var stagedFound = 0
        let daemon = PrivateDaemon()

        for cycle in 0..<kills {
            let logPath = directory.file("rekey-\(cycle).log")
            let writer = try ChildProcess(
                Executables.crashWriter,
                ["rekey", "--home", home, "--log", logPath, "--items", "\(Self.items)", "--from", "\(current)",
                 "--fill", cycle == 0 ? "1" : "0"],
                environment: daemon.environment, in: directory.path)
            if cycle == 0 {
                // The first run fills the keychain; kills start once it has.
                let deadline = Date().addingTimeInterval(60)
                while !log(logPath).contains("filled") && !writer.hasExited && Date() < deadline { usleep(2000) }
            }
            usleep(UInt32(timing.below(Self.killWindow)))
            writer.kill()
            daemon.crash()
            writer.wait()
            guard writer.terminatingSignal == SIGKILL else {
                Issue.record("cycle \(cycle) (seed \(seed)): the writer ended on its own: \(writer.error)")
                return
            }
            let acknowledged = log(logPath).split(separator: "\n")
                .compactMap { $0.hasPrefix("changed ") ? Int($0.dropFirst("changed ".count)) : nil }.last ?? current
            changesAcknowledged += acknowledged - current
            if FileManager.default.fileExists(atPath: Keybag.stagedPath(KeychainLocation.keybagPath(forDatabase: path))) {
                stagedFound += 1
            }

            let keychain = try Keychain.open(path: path, create: false, options: Self.options)
            defer { Keychain.forgetOpenInstance(path: path) }
            var opened: Int?
            for candidate in [acknowledged, acknowledged + 1] where opened == nil {
                do {
                    try keychain.unlock(passcode: Data("passcode-\(candidate)".utf8))
                    opened = candidate
                } catch let error as KeychainError where error.code == .authFailed {
                    continue
                }
            }
            guard let opened else {
                Issue.record("cycle \(cycle) (seed \(seed)): neither passcode-\(acknowledged) nor passcode-\(acknowledged + 1) opens")
                return
            }
            if opened != acknowledged { landedInFlight += 1 }
            var search = ItemRequest(itemClass: .genericPassword)
            search.attributes["svce"] = .string("rekey")
            search.matchLimit = .all
            search.returns = [.attributes, .data]
            let found = try keychain.search(search, context: AccessContext(accessGroups: ["default"]))
            var secrets: [String: String] = [:]
            for result in found {
                secrets[result.attributes?["acct"]?.stringValue ?? "?"] = String(decoding: result.data ?? Data(), as: UTF8.self)
            }
            let expected = Dictionary(uniqueKeysWithValues: (0..<Self.items).map { ("rekey-\($0)", "secret-\($0)") })
            guard secrets == expected else {
                let wrong = expected.filter { secrets[$0.key] != $0.value }.count
                Issue.record("cycle \(cycle) (seed \(seed)): \(wrong) of \(Self.items) items do not read back after the kill")
                return
            }
            current = opened
        }
        print(
            """
            passcode-change crash safety (seed \(seed)): \(kills) SIGKILLs, \(changesAcknowledged) changes acknowledged, \
            \(landedInFlight) kills after a change committed but before it was acknowledged, \(stagedFound) with the new \
            keybag still staged; \(Self.items) items read back after every kill
            """)
        #expect(changesAcknowledged > 0)
    }

    private func log(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
