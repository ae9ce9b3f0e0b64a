import Foundation

/// The simulated disk checked on a plain SQLite database (no keychain), so a simulator that
/// keeps what it should lose, or loses what it should keep, is caught on its own:
///
/// - `disk-probe --home H --synchronous full|off --rows N`: opens (creating) `H/probe.db` in WAL
///   mode through the simulated disk, adds N rows in N transactions, prints `read <rows>` (what
///   the process sees, through the disk's pending writes), then loses power (discarding).
/// - `disk-count --home H`: reads `H/probe.db` with SQLite's own VFS after the loss: `absent`,
///   or `rows <count>`. It keeps the WAL file, so that the next probe's writes go to a file
///   that exists (and must be lost because they were not synced, not because the file vanished).
enum DiskProbe {
    static func write(_ arguments: HelperArguments) throws {
        let synchronous = try arguments.string("synchronous")
        guard ["full", "off"].contains(synchronous) else { throw HelperError("--synchronous must be full or off") }
        let rows = try arguments.integer("rows")
        try PowerLossDisk.install(lossAtEvent: 0, mode: try PowerLossDisk.mode(named: "discard"), seed: 0)
        let database = try SQLiteDatabase(path: try path(arguments), create: true)
        try database.execute("PRAGMA synchronous = \(synchronous); PRAGMA journal_mode = WAL")
        try database.execute("CREATE TABLE IF NOT EXISTS t(x)")
        for row in 0..<rows { try database.execute("INSERT INTO t VALUES (\(row))") }
        let count = try database.column("SELECT count(*) FROM t").first ?? "?"
        FileHandle.standardOutput.write(Data("read \(count)\n".utf8))
        PowerLossDisk.losePower()
    }

    static func count(_ arguments: HelperArguments) throws {
        let path = try path(arguments)
        guard FileManager.default.fileExists(atPath: path) else { return print("absent") }
        let database = try SQLiteDatabase(path: path)
        try database.keepWriteAheadLog()
        let rows = try database.column("SELECT count(*) FROM t").first ?? "?"
        print("rows \(rows)")
    }

    private static func path(_ arguments: HelperArguments) throws -> String {
        try arguments.string("home") + "/probe.db"
    }
}
