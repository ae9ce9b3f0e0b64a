import Foundation
import KeychainService
import Security

#if canImport(Glibc)
import Glibc
#endif

/// keychaind's costs, against floors taken in the same run:
/// - a keyed lookup returning data through the daemon, against the same lookup in-process plus
///   one Unix-socket round trip of a frame of the same size (another process echoing on a socket
///   pair);
/// - `security find-generic-password -w` with a warm daemon, against the Swift hello floor;
/// - 8 client threads at once (8 connections), against one.
struct DaemonBenchmark {
    let items: Int
    let lookups: Int
    private(set) var rows: [ResultRow] = []

    /// Runs every measurement; the daemon is started on a private socket and stopped after.
    mutating func run() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bench-daemon-\(getpid())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let socket = root + "/run/keychaind.sock"
        let products = Processes.productsDirectory
        let daemon = Process()
        daemon.executableURL = products.appendingPathComponent("keychaind")
        daemon.arguments = ["--foreground", "--socket", socket, "--idle-exit", "0"]
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        while (try? UnixSocket.connect(to: socket)) == nil { usleep(2_000) }

        // The same items in two keychains: one opened in this process, one held by the daemon.
        setenv("KEYCHAIND_SOCKET", socket, 1)
        for mode in ["embedded", "daemon"] {
            setenv("KEYCHAIN_MODE", mode, 1)
            setenv("XDG_DATA_HOME", root + "/" + mode, 1)
            for index in 0..<items {
                let status = SecItemAdd(Self.item(index) as CFDictionary, nil)
                guard status == errSecSuccess else { throw CocoaError(.featureUnsupported, userInfo: ["status": status]) }
            }
        }
        let queries = (0..<lookups).map { _ in Self.lookup(Int.random(in: 0..<items)) as CFDictionary }

        var inProcess = Samples(), throughDaemon = Samples(), roundTrip = Samples()
        setenv("KEYCHAIN_MODE", "embedded", 1)
        setenv("XDG_DATA_HOME", root + "/embedded", 1)
        for query in queries { inProcess.measure { Self.copy(query) } }
        setenv("KEYCHAIN_MODE", "daemon", 1)
        setenv("XDG_DATA_HOME", root + "/daemon", 1)
        for query in queries { throughDaemon.measure { Self.copy(query) } }
        // The floor: the in-process lookup plus one round trip of frames of the lookup's sizes.
        let echo = try EchoPair()
        let request = Data(count: 160), response = Data(count: 120)
        for _ in queries { roundTrip.measure { echo.exchange(request, answer: response) } }
        var floor = Samples()
        for (index, value) in inProcess.nanosecondsList.enumerated() {
            floor.add(value + roundTrip.nanosecondsList[index])
        }
        rows.append(ResultRow("lookup → data through keychaind", items: items, samples: throughDaemon, floor: ("in-process lookup + socket round trip", floor)))
        rows.append(ResultRow("Unix-socket round trip (two processes)", items: items, samples: roundTrip))

        // Many clients at once: 8 threads (8 connections) against 1.
        let one = Self.parallelLookups(threads: 1, queries: queries)
        let eight = Self.parallelLookups(threads: 8, queries: queries)
        rows.append(ResultRow(
            "8 clients through keychaind", items: items, samples: eight, floor: ("1 client", one),
            note: String(format: "throughput %.2f× one client's", eight.throughput / one.throughput)))

        // The command with a warm daemon, against a Swift program that prints a line.
        var environment = ProcessInfo.processInfo.environment
        environment["KEYCHAIN_MODE"] = "daemon"
        environment["KEYCHAIND_SOCKET"] = socket
        environment["XDG_DATA_HOME"] = root + "/daemon"
        let security = products.appendingPathComponent("security").path
        let hello = products.appendingPathComponent("bench-hello").path
        var tool = Samples(), helloRuns = Samples()
        for _ in 0..<30 {
            let run = Processes.run(security, ["find-generic-password", "-a", "account-7", "-s", "service-7", "-w"], environment: environment)
            tool.add(run.nanoseconds)
            helloRuns.add(Processes.run(hello, []).nanoseconds)
        }
        rows.append(ResultRow("security find-generic-password -w (warm keychaind)", items: items, samples: tool, floor: ("Swift hello", helloRuns)))
        unsetenv("KEYCHAIND_SOCKET")
        setenv("KEYCHAIN_MODE", "embedded", 1)
    }

    static func item(_ index: Int) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "service-\(index % 100)",
            kSecAttrAccount as String: "account-\(index)", kSecValueData as String: Data(repeating: 0x41, count: 32),
        ]
    }

    static func lookup(_ index: Int) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "service-\(index % 100)",
            kSecAttrAccount as String: "account-\(index)", kSecReturnData as String: true,
        ]
    }

    static func copy(_ query: CFDictionary) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query, &result)
        precondition(status == errSecSuccess, "lookup failed: \(status)")
    }

    /// Every query once, spread over `threads` threads; samples per lookup, wall time of all.
    static func parallelLookups(threads: Int, queries: [CFDictionary]) -> Samples {
        let perThread = queries.count / threads
        let collected = LockedSamples()
        // Each thread reads its own slice; the dictionaries are immutable.
        nonisolated(unsafe) let queries = queries
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var local: [UInt64] = []
            for query in queries[(thread * perThread)..<((thread + 1) * perThread)] {
                let begin = DispatchTime.now().uptimeNanoseconds
                copy(query)
                local.append(DispatchTime.now().uptimeNanoseconds - begin)
            }
            collected.append(local)
        }
        var samples = Samples()
        samples.merge(collected.values, wall: DispatchTime.now().uptimeNanoseconds - start)
        return samples
    }
}

/// Samples gathered from many threads.
final class LockedSamples: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [UInt64] = []
    func append(_ more: [UInt64]) {
        lock.lock()
        values += more
        lock.unlock()
    }
}

/// A socket pair with another process echoing fixed answers: the cost of one round trip between
/// two processes blocked in `recv`, as a client and the daemon are (a round trip between two
/// threads of one process is cheaper: no switch of address space, and it would flatter the
/// floor).
final class EchoPair: @unchecked Sendable {
    let client: Int32
    let echo: pid_t

    init() throws {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw CocoaError(.featureUnsupported) }
        client = pair[0]
        let server = pair[1]
        // Everything the child uses is allocated before the fork: after it, the child only makes
        // system calls (no allocation, no lock another thread of this process might have held).
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        let answer = UnsafeMutableRawPointer.allocate(byteCount: 120, alignment: 16)
        answer.initializeMemory(as: UInt8.self, repeating: 0, count: 120)
        let child = fork()
        guard child >= 0 else { throw CocoaError(.featureUnsupported) }
        if child == 0 {
            close(pair[0])
            while true {
                let count = recv(server, buffer, 4096, 0)
                if count <= 0 { _exit(0) }
                _ = send(server, answer, 120, 0)
            }
        }
        close(server)
        buffer.deallocate()
        answer.deallocate()
        echo = child
    }

    deinit {
        close(client)
        var status: Int32 = 0
        waitpid(echo, &status, 0)
    }

    /// Sends `request` and waits for the echo process's answer.
    func exchange(_ request: Data, answer: Data) {
        _ = request.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: answer.count)
        var received = 0
        while received < answer.count {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress! + received, answer.count - received, 0) }
            if count <= 0 { return }
            received += count
        }
    }
}
