import Foundation
import KeychainCore
import Security

/// Measures every SecItem operation at one keychain size against the floor.
struct Benchmark {
    let items: Int
    let home: String
    let lookups: Int
    var rows: [ResultRow] = []

    init(items: Int, lookups: Int) {
        self.items = items
        self.lookups = lookups
        home = FileManager.default.temporaryDirectory.appendingPathComponent("keychain-bench-\(items)-\(getpid())").path
    }

    var keychainPath: String { home + "/swift-keychain/" + KeychainLocation.defaultKeychainName }

    mutating func run() throws {
        try? FileManager.default.removeItem(atPath: home)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        setenv("XDG_DATA_HOME", home, 1)
        Workload.itemCount = items
        log("populating \(items) items")
        try Workload.populate(path: keychainPath, count: items)

        let rowBytes = try averageRowBytes()
        log("building the floor (\(rowBytes) sealed bytes per row)")
        let floor = Floor(path: home + "/floor.db", items: items, blobSize: rowBytes)
        // Both databases start at rest: their WAL copied in, as after any idle period.
        Floor.checkpoint(path: keychainPath)
        floor.checkpoint()
        var generator = SplitMix(seed: UInt64(items))
        let picks = (0..<lookups).map { _ in Int(generator.next() % UInt64(items)) }

        // Lookups.
        var floorLookup = Samples()
        for index in picks { floorLookup.measure { floor.lookup(index) } }
        let lookupFloor = ("SELECT by unique key + AES-GCM decrypt", floorLookup)
        rows.append(ResultRow("floor: SELECT + decrypt", items: items, samples: floorLookup))

        // Warm-up, untimed: the first thousands of calls after filling the keychain run slower
        // (caches, allocator and page cache settling), which would penalise whichever row came first.
        for index in picks {
            let query = Workload.keyQuery(index, returning: kSecReturnData) as CFDictionary
            var result: CFTypeRef?
            expect(SecItemCopyMatching(query, &result), errSecSuccess)
            floor.lookup(index)
        }

        var byKeyData = Samples()
        for index in picks {
            let query = Workload.keyQuery(index, returning: kSecReturnData) as CFDictionary
            var result: CFTypeRef?
            byKeyData.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
        }
        rows.append(ResultRow("CopyMatching by key → data", items: items, samples: byKeyData, floor: lookupFloor))

        var byKeyAttributes = Samples()
        for index in picks {
            let query = Workload.keyQuery(index, returning: kSecReturnAttributes) as CFDictionary
            var result: CFTypeRef?
            byKeyAttributes.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
        }
        rows.append(ResultRow("CopyMatching by key → attributes", items: items, samples: byKeyAttributes, floor: lookupFloor))

        var miss = Samples()
        for index in picks {
            let dictionary = Workload.missQuery(index) as CFDictionary
            var result: CFTypeRef?
            miss.measure { expect(SecItemCopyMatching(dictionary, &result), errSecItemNotFound) }
        }
        rows.append(ResultRow("CopyMatching miss", items: items, samples: miss, floor: lookupFloor))

        var filter = Samples()
        let filterRuns = max(3, min(50, 50_000_000 / max(items, 1) / 1000))
        for run in 0..<filterRuns {
            let query = Workload.filterQuery(picks[run]) as CFDictionary
            var result: CFTypeRef?
            filter.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
        }
        rows.append(
            ResultRow(
                "CopyMatching non-key filter → all (\(items / 1000) matches)", items: items, samples: filter,
                note: "reads every row of the class: the description is not indexed"))

        // Searches by one indexed attribute, against an indexed SELECT of as many rows plus
        // one decryption each.
        let groups = max(1, items / Workload.groupSize)
        let searchRuns = min(lookups, 200)
        var floorSearch = Samples()
        for run in 0..<searchRuns {
            floorSearch.measure { precondition(floor.searchGroup(picks[run] % groups) == min(items, Workload.groupSize)) }
        }
        let searchFloor = ("indexed SELECT of \(Workload.groupSize) rows + \(Workload.groupSize) decrypts", floorSearch)
        rows.append(ResultRow("floor: indexed SELECT of \(min(items, Workload.groupSize)) rows + decrypts", items: items, samples: floorSearch))
        let searches: [(String, CFString, (Int) -> String, Int?)] = [
            ("service", kSecAttrService, Workload.service, nil),
            ("label", kSecAttrLabel, Workload.label, nil),
            ("access group", kSecAttrAccessGroup, { _ in AccessContext.defaultGroup }, Workload.groupSize),
        ]
        for (name, attribute, value, limit) in searches {
            var samples = Samples()
            for run in 0..<searchRuns {
                let query = Workload.attributeQuery(attribute, value(picks[run]), limit: limit) as CFDictionary
                var result: CFTypeRef?
                samples.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
                precondition((result as? [Any])?.count == min(items, Workload.groupSize))
            }
            let shape = limit == nil ? "all" : "limit \(limit!)"
            rows.append(ResultRow(
                "CopyMatching by \(name) → attributes, \(shape) (\(min(items, Workload.groupSize)) matches)", items: items,
                samples: samples, floor: searchFloor, note: "search index"))
        }

        // Threads.
        for threads in [2, 8] {
            let result = threaded(threads: threads, picks: picks)
            rows.append(ResultRow("CopyMatching by key → data, \(threads) threads", items: items, samples: result, floor: lookupFloor,
                                  note: String(format: "throughput %.2f× one thread", result.throughput / byKeyData.throughput)))
        }
        rows.append(try twoProcesses(picks: picks, single: byKeyData, floor: lookupFloor))

        // Writes.
        let writes = min(lookups, 1000)
        var floorAdd = Samples()
        for index in 0..<writes { floorAdd.measure { floor.add(items + index) } }
        var floorUpdate = Samples()
        for index in 0..<writes { floorUpdate.measure { floor.update(index) } }
        var floorDelete = Samples()
        for index in 0..<writes { floorDelete.measure { floor.delete(items + index) } }
        rows.append(ResultRow("floor: INSERT + encrypt, committed", items: items, samples: floorAdd))
        // What the guarantee that replaced or deleted ciphertext leaves the files before the call
        // returns costs SQLite itself: the same writes, each followed by a TRUNCATE checkpoint.
        var floorUpdateCheckpointed = Samples()
        for index in 0..<writes { floorUpdateCheckpointed.measure { floor.updateCheckpointed(index) } }
        for index in 0..<writes { floor.add(items + index) }
        var floorDeleteCheckpointed = Samples()
        for index in 0..<writes { floorDeleteCheckpointed.measure { floor.deleteCheckpointed(items + index) } }
        rows.append(ResultRow(
            "floor: UPDATE + encrypt + checkpoint", items: items, samples: floorUpdateCheckpointed, floor: ("UPDATE + encrypt", floorUpdate),
            note: "the checkpoint policy's own cost for a write that replaces a secret"))
        rows.append(ResultRow(
            "floor: DELETE + checkpoint", items: items, samples: floorDeleteCheckpointed, floor: ("DELETE", floorDelete),
            note: "the checkpoint policy's own cost for a delete"))

        var add = Samples()
        for index in 0..<writes {
            let attributes = Workload.addDictionary(index, tag: "new") as CFDictionary
            add.measure { expect(SecItemAdd(attributes, nil), errSecSuccess) }
        }
        rows.append(ResultRow("SecItemAdd", items: items, samples: add, floor: ("INSERT + encrypt", floorAdd)))

        var update = Samples()
        for index in 0..<writes {
            let query = Workload.updateQuery(picks[index]) as CFDictionary
            let change = [kSecValueData as String: Workload.secret(index + 7)] as CFDictionary
            update.measure { expect(SecItemUpdate(query, change), errSecSuccess) }
        }
        rows.append(ResultRow("SecItemUpdate data", items: items, samples: update, floor: ("UPDATE + encrypt", floorUpdate)))
        rows.append(ResultRow(
            "SecItemUpdate data (vs checkpointed floor)", items: items, samples: update,
            floor: ("UPDATE + encrypt + checkpoint", floorUpdateCheckpointed)))

        var delete = Samples()
        for index in 0..<writes {
            let query = Workload.addedKeyQuery(index, tag: "new") as CFDictionary
            delete.measure { expect(SecItemDelete(query), errSecSuccess) }
        }
        rows.append(ResultRow("SecItemDelete by key", items: items, samples: delete, floor: ("DELETE", floorDelete)))
        rows.append(ResultRow(
            "SecItemDelete by key (vs checkpointed floor)", items: items, samples: delete,
            floor: ("DELETE + checkpoint", floorDeleteCheckpointed)))

        floor.checkpoint()
        try measureProcesses(floorBytes: try fileBytes(home + "/floor.db"))
    }

    /// Lookups spread over `threads` threads.
    private func threaded(threads: Int, picks: [Int]) -> Samples {
        let collected = Collected()
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var local = Samples()
            for index in stride(from: thread, to: picks.count, by: threads) {
                let query = Workload.keyQuery(picks[index], returning: kSecReturnData) as CFDictionary
                var result: CFTypeRef?
                local.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
            }
            collected.add(local.nanoseconds)
        }
        var samples = Samples()
        samples.merge(collected.values, wall: DispatchTime.now().uptimeNanoseconds - start)
        return samples
    }

    /// Lookups from two worker processes at once.
    private func twoProcesses(picks: [Int], single: Samples, floor: (String, Samples)) throws -> ResultRow {
        let executable = Processes.productsDirectory.appendingPathComponent("keychain-bench").path
        let arguments = ["--worker", "lookups", "--items", "\(items)", "--count", "\(picks.count)"]
        let environment = ["XDG_DATA_HOME": home]
        let results = Collected()
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let run = Processes.run(executable, arguments, environment: environment)
            let values = run.output.split(separator: "\n").last.map { line in
                line.split(separator: " ").compactMap { UInt64($0) }
            } ?? []
            results.add(values)
        }
        var samples = Samples()
        samples.merge(results.values, wall: DispatchTime.now().uptimeNanoseconds - start)
        return ResultRow("CopyMatching by key → data, 2 processes", items: items, samples: samples, floor: floor,
                         note: String(format: "throughput %.2f× one thread (includes process start)", samples.throughput / single.throughput))
    }

    /// The `security` command as a whole process, memory, open time and file size.
    private mutating func measureProcesses(floorBytes: Int) throws {
        let products = Processes.productsDirectory
        let security = products.appendingPathComponent("security").path
        let hello = products.appendingPathComponent("bench-hello").path
        let environment = ["XDG_DATA_HOME": home]
        let runs = 30
        var helloSamples = Samples()
        for _ in 0..<runs {
            let run = Processes.run(hello, [])
            helloSamples.merge([run.nanoseconds], wall: helloSamples.wallNanoseconds + run.nanoseconds)
        }
        rows.append(ResultRow("floor: Swift hello process (Foundation)", items: items, samples: helloSamples))
        var find = Samples()
        var findRSS = 0
        for index in 0..<runs {
            let run = Processes.run(
                security, ["find-generic-password", "-a", Workload.account(index * 7), "-s", Workload.service(index * 7), "-w"],
                environment: environment)
            if run.status != 0 { log("find-generic-password exited \(run.status)") }
            find.merge([run.nanoseconds], wall: find.wallNanoseconds + run.nanoseconds)
        }
        rows.append(ResultRow("security find-generic-password -w", items: items, samples: find, floor: ("Swift hello", helloSamples)))
        var add = Samples()
        var addRSS = 0
        for index in 0..<runs {
            let run = Processes.run(
                security, ["add-generic-password", "-a", "cli\(index)", "-s", "bench.cli", "-w", "secret-\(index)"],
                environment: environment)
            if run.status != 0 { log("add-generic-password exited \(run.status)") }
            add.merge([run.nanoseconds], wall: add.wallNanoseconds + run.nanoseconds)
        }
        rows.append(ResultRow("security add-generic-password", items: items, samples: add, floor: ("Swift hello", helloSamples)))
        findRSS = Processes.peakRSSKiB(
            security, ["find-generic-password", "-a", Workload.account(3), "-s", Workload.service(3), "-w"],
            environment: environment) ?? 0
        addRSS = Processes.peakRSSKiB(
            security, ["add-generic-password", "-a", "cli-rss", "-s", "bench.cli", "-w", "secret"], environment: environment) ?? 0
        let helloRSS = Processes.peakRSSKiB(hello, [], environment: [:]) ?? 0
        rows.append(
            ResultRow(
                figure: "security peak RSS (find / add, GNU time)", items: items, value: Double(max(findRSS, addRSS)) / 1024,
                unit: "MiB", floor: ("Swift hello", Double(helloRSS) / 1024)))

        let executable = products.appendingPathComponent("keychain-bench").path
        let worker = Processes.run(executable, ["--worker", "open-and-lookups", "--items", "\(items)", "--count", "200"], environment: environment)
        let figures = worker.output.split(separator: "\n").last.map { $0.split(separator: " ").compactMap { Double($0) } } ?? []
        if figures.count == 2 {
            rows.append(ResultRow(figure: "open keychain (fresh process)", items: items, value: figures[0] / 1000, unit: "µs"))
            rows.append(ResultRow(figure: "library process peak RSS after 200 lookups", items: items, value: figures[1] / 1024, unit: "MiB"))
        }
        // Both databases are measured after a checkpoint that empties their WAL: the WAL file
        // keeps its high-water size (several MB after a run of writes), which says nothing about N.
        Floor.checkpoint(path: keychainPath)
        let ours = try fileBytes(keychainPath) + fileBytes(keychainPath + "-wal")
        rows.append(ResultRow(figure: "file size per 1000 items (after checkpoint)", items: items,
                              value: Double(ours) / Double(max(items, 1)) * 1000 / 1024,
                              unit: "KiB", floor: ("floor table", Double(floorBytes) / Double(max(items, 1)) * 1000 / 1024)))
    }

    /// The sealed bytes of an average row (attributes and secret), which the floor's blob has.
    private func averageRowBytes() throws -> Int {
        max(64, min(4096, Floor.averageSealedBytes(path: keychainPath)))
    }

    private func fileBytes(_ path: String) throws -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}

/// Samples gathered from several threads.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [UInt64] = []
    func add(_ more: [UInt64]) {
        lock.lock()
        values += more
        lock.unlock()
    }
}

/// Stops the run if an operation returned the wrong status: figures of failing calls mean nothing.
func expect(_ status: OSStatus, _ expected: OSStatus) {
    if status != expected {
        log("unexpected status \(status) (expected \(expected))")
        exit(1)
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("keychain-bench: \(message)\n".utf8))
}
