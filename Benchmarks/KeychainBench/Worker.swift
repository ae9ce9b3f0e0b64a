import Foundation
import KeychainCore
import Security

/// Worker-process entry points, run as `keychain-bench --worker <mode> [--items N] [--count K]`
/// against the default keychain (`XDG_DATA_HOME` chooses it). The benchmark uses `lookups` for
/// its two-process row and `open-and-lookups` for open time and memory; every mode also serves
/// profiling one operation, for example:
///
///     XDG_DATA_HOME=/tmp/h keychain-bench --worker populate --items 10000
///     valgrind --tool=callgrind --toggle-collect='$s8Security19SecItemCopyMatchingys5Int32V10Foundation12NSDictionaryC_SpyyXlSgGSgtF' \
///         keychain-bench --worker lookups --items 10000 --count 2000
///
/// (`scripts/bench-instructions` does this for every mode.) Dictionaries are built and bridged
/// before the timed call, as in the benchmark. Timed modes print their samples (ns) on one line.
enum Worker {
    static func run(mode: String, items: Int, count: Int) {
        Workload.itemCount = items
        var generator = SplitMix(seed: UInt64(getpid()))
        let tag = "added-\(getpid())-"
        func pick() -> Int { Int(generator.next() % UInt64(max(items, 1))) }
        var samples = Samples()
        switch mode {
        case "populate":
            do {
                try Workload.populate(path: KeychainLocation.defaultKeychainPath, count: items)
            } catch {
                log("populate failed: \(error)")
                exit(1)
            }
            return
        case "lookups", "attributes", "misses":
            let expected = mode == "misses" ? errSecItemNotFound : errSecSuccess
            for _ in 0..<count {
                let query: CFDictionary
                switch mode {
                case "lookups": query = Workload.keyQuery(pick(), returning: kSecReturnData) as CFDictionary
                case "attributes": query = Workload.keyQuery(pick(), returning: kSecReturnAttributes) as CFDictionary
                default: query = Workload.missQuery(pick()) as CFDictionary
                }
                var result: CFTypeRef?
                samples.measure { expect(SecItemCopyMatching(query, &result), expected) }
            }
        case "threaded-lookups":
            // `count` lookups spread over two threads, each building its queries as it goes.
            let collected = Collected()
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                var local = Samples()
                var generator = SplitMix(seed: UInt64(getpid()) &+ UInt64(thread))
                for _ in 0..<(count / 2) {
                    let query = Workload.keyQuery(Int(generator.next() % UInt64(max(items, 1))), returning: kSecReturnData) as CFDictionary
                    var result: CFTypeRef?
                    local.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
                }
                collected.add(local.nanoseconds)
            }
            samples.merge(collected.values, wall: 0)
        case "filter":
            for _ in 0..<count {
                let query = Workload.filterQuery(pick()) as CFDictionary
                var result: CFTypeRef?
                samples.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
            }
        case "by-service":
            for _ in 0..<count {
                let query = Workload.attributeQuery(kSecAttrService, Workload.service(pick()), limit: nil) as CFDictionary
                var result: CFTypeRef?
                samples.measure { expect(SecItemCopyMatching(query, &result), errSecSuccess) }
            }
        case "adds":
            for index in 0..<count {
                let attributes = Workload.addDictionary(index, tag: tag) as CFDictionary
                samples.measure { expect(SecItemAdd(attributes, nil), errSecSuccess) }
            }
        case "updates":
            for index in 0..<count {
                let query = Workload.updateQuery(pick()) as CFDictionary
                let change = [kSecValueData as String: Workload.secret(index + 7)] as CFDictionary
                samples.measure { expect(SecItemUpdate(query, change), errSecSuccess) }
            }
        case "deletes":
            for index in 0..<count {
                expect(SecItemAdd(Workload.addDictionary(index, tag: tag) as CFDictionary, nil), errSecSuccess)
            }
            for index in 0..<count {
                let query = Workload.addedKeyQuery(index, tag: tag) as CFDictionary
                samples.measure { expect(SecItemDelete(query), errSecSuccess) }
            }
        case "floor-lookups", "floor-adds", "floor-search":
            let path = KeychainLocation.directory + "/floor-\(getpid()).db"
            defer {
                for file in [path, path + "-search"] {
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
                }
            }
            let blobSize = Floor.averageSealedBytes(path: KeychainLocation.defaultKeychainPath)
            let floor = Floor(path: path, items: items, blobSize: max(64, min(4096, blobSize)))
            for index in 0..<count {
                if mode == "floor-lookups" {
                    let row = pick()
                    samples.measure { floor.lookup(row) }
                } else if mode == "floor-search" {
                    let group = pick() % max(1, items / Workload.groupSize)
                    samples.measure { _ = floor.searchGroup(group) }
                } else {
                    samples.measure { floor.add(items + index) }
                }
            }
        case "open-and-lookups":
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try? Keychain.openDefault()
            let opened = DispatchTime.now().uptimeNanoseconds - start
            for _ in 0..<count {
                let query = Workload.keyQuery(pick(), returning: kSecReturnData) as CFDictionary
                var result: CFTypeRef?
                expect(SecItemCopyMatching(query, &result), errSecSuccess)
            }
            print("\(opened) \(Processes.selfMaxRSSKiB)")
            return
        default:
            log("unknown worker mode \(mode)")
            exit(2)
        }
        print(samples.nanoseconds.map(String.init).joined(separator: " "))
    }
}
