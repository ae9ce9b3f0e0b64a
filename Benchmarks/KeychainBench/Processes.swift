import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs child processes and measures them.
enum Processes {
    /// The directory holding this executable (the other built products sit beside it).
    static var productsDirectory: URL {
        URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Runs `executable` with `arguments` and extra environment; returns wall time (ns), exit
    /// status and standard output.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:])
        -> (nanoseconds: UInt64, status: Int32, output: String)
    {
        var environment = environment
        for (key, value) in ProcessInfo.processInfo.environment where environment[key] == nil {
            environment[key] = value
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pipeEnds: [Int32] = [0, 0]
        pipe(&pipeEnds)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        let start = DispatchTime.now().uptimeNanoseconds
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        posix_spawn_file_actions_destroy(&actions)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            return (0, -1, "")
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        return (elapsed, exitCode, String(decoding: output, as: UTF8.self))
    }

    /// This process's peak resident set size in KiB (`VmHWM`: it belongs to the address space
    /// made by `exec`, unlike `ru_maxrss`, which a spawned child inherits from its parent while
    /// they share memory before the `exec`).
    static var selfMaxRSSKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Runs a command under GNU time (`/usr/bin/time -f %M`) and returns its peak RSS in KiB, or
    /// nil where GNU time is not installed. (`wait4`'s figure for a direct child includes this
    /// benchmark's own memory, which the child shares until it calls `exec`.)
    static func peakRSSKiB(_ executable: String, _ arguments: [String], environment: [String: String]) -> Int? {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { return nil }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("bench-rss-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        _ = run(time, ["-f", "%M", "-o", report, executable] + arguments, environment: environment)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last ?? "")
    }
}
