import Foundation
import KeychainCore
import KeychainSync

/// Sync through PostgreSQL at `items` synchronizable items, with a server started for the run:
/// - a change on one device visible on another, both syncing in the background as keychaind
///   does (`BackgroundSync`: the change wakes the writer's worker, its upload's `NOTIFY` wakes
///   the reader's), timed from the write until the reader's keychain returns the new secret;
/// - the first sync of every item to a new device, against a floor measured in the same run:
///   PostgreSQL returning those rows and each record opened (`fetchAndOpenEveryRecord`);
/// - the server's bytes per item stored and rows written per change (from its own counters).
/// Skipped, with a line saying so, when PostgreSQL's programs are not installed.
struct SyncBenchmark {
    let items: Int
    let changes: Int
    private(set) var rows: [ResultRow] = []

    init(items: Int, changes: Int = 20) {
        self.items = items
        self.changes = changes
    }

    mutating func run() throws {
        guard BenchPostgres.isInstalled else {
            print("\n== sync: skipped (PostgreSQL's programs are not in \(BenchPostgres.binaries); apt-get install postgresql-15)")
            return
        }
        let server = try BenchPostgres()
        defer { server.stop() }
        let admin = try PostgresConnection(server.conninfo(user: "postgres"))
        try admin.execute("CREATE ROLE bench LOGIN")
        _ = try SyncSchema.install(on: admin)
        let conninfo = server.conninfo(user: "bench")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keychain-bench-sync-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let writer = try Self.keychain(directory + "/writer.keychain-db")
        let secret = try SyncEngine.enable(writer, conninfo: conninfo)
        for index in 0..<items { _ = try writer.add(Self.item(index, secret: "secret \(index)")) }
        var upload = Samples()
        try upload.measure { _ = try SyncEngine.syncNow(writer) }

        // The first sync of every item to a new device, and its floor.
        var first = Samples(), floor = Samples()
        for round in 0..<3 {
            let reader = try Self.keychain(directory + "/new-\(round).keychain-db")
            try SyncEngine.join(reader, conninfo: conninfo, recoverySecret: secret)
            try floor.measure { _ = try SyncEngine.fetchAndOpenEveryRecord(reader) }
            var report: SyncReport?
            try first.measure { report = try SyncEngine.syncNow(reader) }
            guard let report, report.applied == items else { throw BenchError("the first sync applied \(report?.applied ?? 0) of \(items) items") }
        }
        rows.append(ResultRow("sync: first upload of every item (one transaction)", items: items, samples: upload))
        rows.append(ResultRow(
            "sync: first sync of every item to a new device", items: items, samples: first,
            floor: ("PostgreSQL returning the rows + opening each", floor), note: "target ≤ 3×"))

        // The change visible on another device, both syncing in the background.
        let reader = try Self.keychain(directory + "/reader.keychain-db")
        try SyncEngine.join(reader, conninfo: conninfo, recoverySecret: secret)
        _ = try SyncEngine.syncNow(reader)
        let handles: [String: any KeychainHandle] = [writer.path: writer, reader.path: reader]
        let background = BackgroundSync(log: { _ in }) { path in
            guard let handle = handles[path] else { throw BenchError("no keychain at \(path)") }
            return handle
        }
        background.keychainOpened(path: writer.path)
        background.keychainOpened(path: reader.path)
        // Both workers start with an exchange; let them settle.
        Thread.sleep(forTimeInterval: 2)
        var visible = Samples()
        for change in 0..<changes {
            let index = change * max(1, items / changes)
            let value = "changed \(change)"
            var changes = ItemChanges()
            changes.secret = Data(value.utf8)
            try visible.measure {
                try writer.update(Self.item(index, secret: nil), changes: changes)
                background.keychainChanged(path: writer.path, syncState: false)
                while try Self.secret(of: index, in: reader) != value { usleep(1_000) }
            }
        }
        rows.append(ResultRow(
            "sync: change visible on another device (notifications)", items: items, samples: visible,
            note: "target ≤ 1 s; includes the 0.2 s debounce"))

        try measureServerCost(admin: admin, writer: writer)
    }

    /// Bytes the server holds per live record, and rows it wrote per change (its statistics
    /// counters, read after the writing connections closed).
    private mutating func measureServerCost(admin: PostgresConnection, writer: any KeychainHandle) throws {
        let size = try admin.execute(
            """
            SELECT pg_total_relation_size('keychain_sync.record') AS total,
                   (SELECT count(*) FROM keychain_sync.record WHERE NOT deleted) AS live,
                   (SELECT avg(pg_column_size(r.*)) FROM keychain_sync.record r) AS row_bytes
            """)
        let total = Double(try size.integer(0, "total")), live = Double(try size.integer(0, "live"))
        let rowBytes = Double(try size.string(0, "row_bytes")) ?? .nan
        rows.append(ResultRow(figure: "sync: server bytes per item (table, TOAST and indexes)", items: items, value: total / live, unit: "bytes"))
        rows.append(ResultRow(figure: "sync: server bytes per record row (tuple)", items: items, value: rowBytes, unit: "bytes"))

        let counted = """
            SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) AS n FROM pg_stat_user_tables WHERE schemaname = 'keychain_sync'
            """
        func written() throws -> Int64 {
            // Each exchange's connection has closed, so its counters reach the statistics soon.
            var last: Int64 = -1
            while true {
                Thread.sleep(forTimeInterval: 1.5)
                try admin.execute("SELECT pg_stat_clear_snapshot()")
                let now = try admin.execute(counted).integer(0, "n")
                if now == last { return now }
                last = now
            }
        }
        let before = try written()
        let changes = 10
        for change in 0..<changes {
            var update = ItemChanges()
            update.secret = Data("counted \(change)".utf8)
            try writer.update(Self.item(change, secret: nil), changes: update)
            _ = try SyncEngine.syncNow(writer)
        }
        let perChange = Double(try written() - before) / Double(changes)
        rows.append(ResultRow(figure: "sync: server rows written per change (record + manifest)", items: items, value: perChange, unit: "rows"))
    }

    private static func keychain(_ path: String) throws -> any KeychainHandle {
        EmbeddedKeychain(try Keychain.create(path: path, passcode: nil), context: AccessContext(accessGroups: ["bench", "*"]))
    }

    /// The synchronizable item `index` (a query when `secret` is nil).
    private static func item(_ index: Int, secret: String?) -> ItemRequest {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes[.service] = .string("bench.sync")
        request.attributes[.account] = .string("account \(index)")
        request.synchronizable = .only(true)
        request.secret = secret.map { Data($0.utf8) }
        return request
    }

    private static func secret(of index: Int, in keychain: any KeychainHandle) throws -> String? {
        var request = item(index, secret: nil)
        request.returns = .data
        request.matchLimit = .one
        guard let data = try keychain.search(request).first?.data else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
