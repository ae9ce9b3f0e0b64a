import Foundation
import Testing

/// The secret a search returns is zeroed when the caller releases it (docs/reliability.md §5).
/// Through the daemon (`KEYCHAIN_MODE=daemon`, a daemon of the test's own) the secret also passes
/// through `keychaind`: once the probe's search was answered, the daemon's writable memory must
/// hold no copy of it either (scanned while the daemon is stopped).
@Suite("Memory hygiene")
struct MemoryHygieneTests {
    @Test(
        "after SecItemCopyMatching's result is released, the process's writable memory holds no copy of the secret",
        .enabled(if: ProcessMemoryScanner.isPermitted, "reading a child's memory needs root or Yama ptrace_scope ≤ 1"))
    func releasedResultLeavesNoCopy() throws {
        let directory = try TemporaryDirectory("memory")
        let home = directory.file("home")
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<48).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let hex = secret.map { String(format: "%02x", $0) }.joined()
        let masked = secret.map { String(format: "%02x", $0 ^ 0xA5) }.joined()
        // Another process adds the item, so the probe's memory only sees the search.
        let daemon = PrivateDaemon()
        let add = try Executables.runSecurity(
            ["add-generic-password", "-a", "probe", "-s", "memory.probe", "-X", hex], home: home,
            environment: daemon.environment, in: directory.path)
        try #require(add.exitCode == 0, "\(add.error)")

        let probe = try ChildProcess(
            Executables.crashWriter, ["memory-probe", "--home", home, "--account", "probe", "--masked", masked],
            environment: daemon.environment, in: directory.path)
        let scanner = ProcessMemoryScanner(pid: probe.pid)
        var counts: [Int] = []
        var leftovers: [String] = []
        var inDaemon: [String]?
        for moment in ["held", "released", "freed control"] {
            try #require(probe.waitUntilStopped(), "the probe ended before \(moment): \(probe.error)")
            let copies = try scanner.copies(of: secret)
            counts.append(copies.count)
            if moment == "released" {
                leftovers = copies.map { "0x\(String($0.address, radix: 16)) in \($0.mapping)" }
                if let pid = daemon.pid {
                    // The daemon zeroes what it sent after sending it: scanned once every thread
                    // waits again (a busy machine may otherwise catch it between the two).
                    try ProcessMemoryScanner.stopWhenIdle(pid)
                    defer { kill(pid, SIGCONT) }
                    inDaemon = try ProcessMemoryScanner(pid: pid).copies(of: secret).map {
                        "0x\(String($0.address, radix: 16)) in \($0.mapping)"
                    }
                }
            }
            probe.resume()
        }
        #expect(probe.wait(seconds: 30) && probe.exitCode == 0, "\(probe.error)")
        // The controls: the live result is found, and so is a copy freed without zeroing.
        #expect(counts[0] >= 1, "the scan did not find the live result")
        #expect(counts[2] >= counts[1] + 1, "the scan did not find a copy left in freed memory")
        #expect(counts[1] == 0, "copies left after release:\n\(leftovers.joined(separator: "\n"))")
        if PrivateDaemon.inUse {
            #expect(inDaemon == [], "copies in keychaind after the answer:\n\((inDaemon ?? ["the daemon was not running"]).joined(separator: "\n"))")
        }
        print("memory hygiene: copies found while held \(counts[0]), after release \(counts[1]), freed control \(counts[2])")
    }
}
