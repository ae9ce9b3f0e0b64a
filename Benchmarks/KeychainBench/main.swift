// keychain-bench: every SecItem operation measured against a floor taken in the same run.
//
//   swift run -c release keychain-bench [--max-items N] [--lookups K] [--json FILE] [--no-daemon | --daemon-only]
//                                       [--no-sync | --sync-only] [--sync-items N]
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

// Every row but keychaind's measures keychains opened in this process (and in the worker
// processes and `security` runs it starts, which inherit the mode).
setenv("KEYCHAIN_MODE", "embedded", 1)

if let mode = option("--worker") {
    Worker.run(mode: mode, items: Int(option("--items") ?? "") ?? 1000, count: Int(option("--count") ?? "") ?? 1000)
    exit(0)
}

let maxItems = Int(option("--max-items") ?? "") ?? 1_000_000
let lookups = Int(option("--lookups") ?? "") ?? 2000
let syncOnly = arguments.contains("--sync-only")
let sizes = arguments.contains("--daemon-only") || syncOnly ? [] : [1_000, 100_000, 1_000_000].filter { $0 <= maxItems }
var rows: [ResultRow] = []
for size in sizes {
    var benchmark = Benchmark(items: size, lookups: lookups)
    do {
        try benchmark.run()
    } catch {
        log("run at \(size) items failed: \(error)")
        exit(1)
    }
    rows += benchmark.rows
    Report.printTable(benchmark.rows)
}
if !arguments.contains("--no-daemon") && !syncOnly {
    var daemon = DaemonBenchmark(items: 1_000, lookups: lookups)
    do {
        try daemon.run()
    } catch {
        log("keychaind's run failed: \(error)")
        exit(1)
    }
    rows += daemon.rows
    Report.printTable(daemon.rows)
}
if !arguments.contains("--no-sync") && !arguments.contains("--daemon-only") {
    var sync = SyncBenchmark(items: Int(option("--sync-items") ?? "") ?? 10_000)
    do {
        try sync.run()
    } catch {
        log("the sync run failed: \(error)")
        exit(1)
    }
    rows += sync.rows
    Report.printTable(sync.rows)
}
if TPMBenchmark.isConfigured && !arguments.contains("--daemon-only") && !syncOnly {
    var tpm = TPMBenchmark(signatures: 200)
    do {
        try tpm.run()
    } catch {
        log("the TPM run failed: \(error)")
        exit(1)
    }
    rows += tpm.rows
    Report.printTable(tpm.rows)
}
if let path = option("--json") {
    Report.writeJSON(rows, to: path)
}
