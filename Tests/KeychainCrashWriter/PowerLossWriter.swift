/// `power-loss`: the crash writer's random operations (no state dump) on a simulated disk that
/// loses power at event `--loss-after` (a write, truncate, sync or delete of the database, its
/// WAL or a journal), with `--unsynced discard|scatter` choosing what happens to unsynced writes.
/// The process ends there with `PowerLossExitStatus`; reaching the end of `--ops` first is an
/// error. Writes outside SQLite (keybag, device key) are complete and synced whenever power can
/// be lost, since the helper is single-threaded and power is lost only inside SQLite's I/O.
///
/// `--checkpoint-every K` (K > 0) also runs `PRAGMA wal_checkpoint(TRUNCATE)` on a connection of
/// its own after every K operations, so that power is lost inside checkpoints too (writes to the
/// main database file, their sync, the WAL's truncation and its restart).
struct PowerLossWriter {
    let writer: CrashWriter
    let lossAtEvent: Int
    let unsynced: String
    let seed: UInt64
    let checkpointInterval: Int

    init(_ arguments: HelperArguments) throws {
        writer = try CrashWriter(arguments)
        lossAtEvent = try arguments.integer("loss-after")
        unsynced = try arguments.string("unsynced")
        seed = UInt64(try arguments.integer("seed"))
        checkpointInterval = try arguments.integer("checkpoint-every", default: 0)
        guard lossAtEvent > 0 else { throw HelperError("--loss-after must be positive") }
    }

    func run() throws {
        try PowerLossDisk.install(lossAtEvent: lossAtEvent, mode: try PowerLossDisk.mode(named: unsynced), seed: seed)
        var checkpointer: SQLiteDatabase?
        try writer.run { sequence in
            guard checkpointInterval > 0, sequence % checkpointInterval == checkpointInterval - 1 else { return }
            if checkpointer == nil { checkpointer = try SQLiteDatabase(path: StateDump.databasePath) }
            _ = try checkpointer?.column("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        throw HelperError("the operations ended after \(PowerLossDisk.events) events, before the power loss")
    }
}
