import Foundation
import PowerLossVFS
import Testing

/// Power loss (docs/reliability.md §1): the crash writer runs on a simulated disk
/// (`Tests/PowerLossVFS`, an SQLite VFS that keeps every write not yet synced in memory) that
/// loses power at a random write, truncate, sync or delete; the keychain is then opened with
/// SQLite's own VFS, as after a reboot, and checked with the crash test's `CrashLogModel`.
///
/// What the simulation covers: the database, its WAL and journals (writes, truncates, syncs, and
/// the directory sync that makes a new WAL or journal file durable), including checkpoints. What
/// it does not: files written outside SQLite (keybag, device key), which are written, fsynced,
/// renamed and their directory fsynced before the call returns, so they are complete whenever
/// power can be lost (only inside SQLite's I/O, in a single-threaded writer); an unlink that a
/// power loss would undo; and the empty database file the keychain creates before SQLite opens
/// it, whose directory entry becomes durable with the first journal or WAL sync.
///
/// The simulated disk is a VFS registered inside the process that runs SQLite, so the writer (and
/// the look after each loss) always open the keychain themselves (`KEYCHAIN_MODE=embedded`), in
/// daemon-mode runs too: a
/// `keychaind` is that same engine in another process, and there is no way to put this disk
/// under it. A process crash of the daemon mid-write is the crash test's daemon mode
/// (`CrashSafetyTests`: the daemon killed with SIGKILL after each writer).
///
/// `KEYCHAIN_POWERLOSS_RUNS` sets the number of power losses (default 100);
/// `KEYCHAIN_POWERLOSS_SEED` replays a run (the seed is printed; a seed loses power at the same
/// events with the same operations).
@Suite("Power loss")
struct PowerLossTests {
    /// Power losses per keychain; each keychain's first loss lands among its first 60 events,
    /// often while it is being created.
    static let lossesPerKeychain = 10

    /// The writer and the look after its power loss open the keychain themselves (the simulated
    /// disk exists only in-process; a daemon holding the keychain would keep the next writer out).
    static let inProcess = ["KEYCHAIN_MODE": "embedded"]

    /// Where the keychains live: the real disk's own syncs add nothing here (what survives is the
    /// simulated disk's decision), only time, so a memory filesystem is used when there is one.
    static let base: String? = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : nil

    @Test("a writer whose disk loses power at a random write or sync never loses an acknowledged write nor leaves a torn or undecryptable item")
    func powerLossLosesNothingAcknowledged() throws {
        let runs = environmentNumber("KEYCHAIN_POWERLOSS_RUNS", default: 100)
        let seed = UInt64(environmentNumber("KEYCHAIN_POWERLOSS_SEED", default: Int.random(in: 1...999_999)))
        let directory = try TemporaryDirectory("power-loss", in: Self.base)
        var random = SplitMix(seed: seed)
        var figures = PowerLossFigures()
        var model = CrashLogModel()
        var home = ""
        let start = Date()

        for run in 0..<runs {
            let keychain = run / Self.lossesPerKeychain
            let isFirstLoss = run % Self.lossesPerKeychain == 0
            if isFirstLoss {
                figures.add(model)
                model = CrashLogModel()
                home = directory.file("home-\(keychain)")
            }
            let lossAt = 1 + random.below(isFirstLoss ? 60 : 400)
            let unsynced = random.below(2) == 0 ? "discard" : "scatter"
            // Every other keychain also checkpoints the WAL every few operations.
            let checkpointEvery = keychain % 2 == 1 ? 1 + random.below(5) : 0
            let log = directory.file("log-\(run)")
            let context =
                "run \(run) (seed \(seed)): power lost at event \(lossAt), unsynced writes \(unsynced), "
                + "checkpoint every \(checkpointEvery) operations"
            let writer = try ChildProcess(
                Executables.crashWriter,
                ["power-loss", "--home", home, "--log", log, "--seed", "\(seed &* 100_000 &+ UInt64(run))",
                 "--loss-after", "\(lossAt)", "--unsynced", unsynced, "--checkpoint-every", "\(checkpointEvery)"],
                environment: Self.inProcess, in: directory.path)
            guard writer.wait(seconds: 120) else {
                Issue.record("\(context): the writer did not lose power within 120 s")
                return
            }
            guard writer.exitCode == Int32(PowerLossExitStatus), let report = PowerLossReport(writer.error) else {
                Issue.record("\(context): the writer ended otherwise (status \(writer.wait())): \(writer.error)")
                return
            }
            figures.add(report)
            do {
                try model.replay(log: try String(contentsOfFile: log, encoding: .utf8))
                let verify = try Executables.runHelper(["verify", "--home", home], environment: Self.inProcess, in: directory.path)
                try model.check(state: try KeychainState(parsing: verify.output))
            } catch {
                Issue.record("\(context), \(writer.error.trimmingCharacters(in: .newlines)): \(error)")
                return
            }
            try? FileManager.default.removeItem(atPath: log)
        }
        figures.add(model)
        print(
            """
            power loss (seed \(seed)): \(runs) power losses in \(Int(Date().timeIntervalSince(start))) s, \
            \(figures.lossesWithUnsyncedWrites) of them with unsynced writes (\(figures.lossesInCheckpoints) \
            inside a checkpoint, with unsynced writes to the main database file; \(figures.unsyncedWrites) writes \
            and truncates: \(figures.keptWhole) reached the disk whole and \(figures.torn) torn, the rest were \
            lost), \(figures.vanishedFiles) new files vanished; \(figures.acknowledgedWrites) acknowledged \
            writes, \(figures.refusedWrites) refused writes and \(figures.checkedReads) reads checked against \
            the log; \(figures.checkedStates) states with \(figures.checkedItems) items checked after the \
            losses; in-flight writes found applied \(figures.inFlightApplied), not applied \(figures.inFlightLost)
            """)
        #expect(figures.checkedStates == runs)
        #expect(figures.acknowledgedWrites > runs)
        // A disk that wrote everything through would never have anything to lose.
        #expect(figures.lossesWithUnsyncedWrites > runs / 4)
    }

    @Test("the simulated disk keeps synced writes, loses unsynced ones and new files whose directory was never synced, and reads back its own unsynced writes")
    func simulatedDiskLosesExactlyTheUnsynced() throws {
        let directory = try TemporaryDirectory("power-loss-disk", in: Self.base)
        let home = directory.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)

        /// Adds `rows` rows with `synchronous`, loses power; returns what the writer read before
        /// the loss and what SQLite's own VFS finds after it (`read 2, then rows 2`).
        func probe(_ synchronous: String, rows: Int) throws -> String {
            let writer = try Executables.runHelper(
                ["disk-probe", "--home", home, "--synchronous", synchronous, "--rows", "\(rows)"], in: directory.path)
            try #require(writer.exitCode == Int32(PowerLossExitStatus), "the probe ended otherwise: \(writer.error)")
            let count = try Executables.runHelper(["disk-count", "--home", home], in: directory.path)
            try #require(count.exitCode == 0, "counting failed: \(count.error)")
            return writer.output.trimmingCharacters(in: .newlines) + ", then " + count.output.trimmingCharacters(in: .newlines)
        }

        // Never synced: the new database file was never recorded in its directory.
        let neverSynced = try probe("off", rows: 2)
        #expect(neverSynced == "read 2, then absent")
        // Synced at every commit: all there.
        let synced = try probe("full", rows: 2)
        #expect(synced == "read 2, then rows 2")
        // Three commits never synced: the process read its five rows, the disk kept two.
        let unsynced = try probe("off", rows: 3)
        #expect(unsynced == "read 5, then rows 2")
        let syncedAgain = try probe("full", rows: 1)
        #expect(syncedAgain == "read 3, then rows 3")
    }
}

/// The line a writer prints when its disk loses power (`Tests/PowerLossVFS`): `power-loss event
/// E mode M pending P database D wal W bytes B kept K torn T vanished V`.
struct PowerLossReport {
    /// Unsynced writes and truncates at the loss.
    let pending: Int
    /// Of those, to the main database file (power was lost inside a checkpoint).
    let database: Int
    /// Of those, written whole (scatter mode only).
    let kept: Int
    /// Of those, written torn (scatter mode only).
    let torn: Int
    /// New files whose directory entry was never synced and that vanished.
    let vanished: Int

    init?(_ text: String) {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("power-loss ") }) else { return nil }
        let fields = line.split(separator: " ").map(String.init)
        var values: [String: Int] = [:]
        for index in stride(from: 1, to: fields.count - 1, by: 2) { values[fields[index]] = Int(fields[index + 1]) }
        guard let pending = values["pending"], let database = values["database"], let kept = values["kept"],
            let torn = values["torn"], let vanished = values["vanished"]
        else { return nil }
        (self.pending, self.database, self.kept, self.torn, self.vanished) = (pending, database, kept, torn, vanished)
    }
}

/// The power-loss test's totals over its keychains (one `CrashLogModel` each) and losses.
struct PowerLossFigures {
    var lossesWithUnsyncedWrites = 0
    var lossesInCheckpoints = 0
    var unsyncedWrites = 0
    var keptWhole = 0
    var torn = 0
    var vanishedFiles = 0
    var acknowledgedWrites = 0
    var refusedWrites = 0
    var checkedReads = 0
    var checkedStates = 0
    var checkedItems = 0
    var inFlightApplied = 0
    var inFlightLost = 0

    mutating func add(_ report: PowerLossReport) {
        if report.pending > 0 { lossesWithUnsyncedWrites += 1 }
        if report.database > 0 { lossesInCheckpoints += 1 }
        unsyncedWrites += report.pending
        keptWhole += report.kept
        torn += report.torn
        vanishedFiles += report.vanished
    }

    mutating func add(_ model: CrashLogModel) {
        acknowledgedWrites += model.acknowledgedWrites
        refusedWrites += model.refusedWrites
        checkedReads += model.checkedReads
        checkedStates += model.checkedStates
        checkedItems += model.checkedItems
        inFlightApplied += model.inFlightApplied
        inFlightLost += model.inFlightLost
    }
}
