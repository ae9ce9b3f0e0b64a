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
    /// status, peak RSS (KiB) and standard output.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:])
        -> (nanoseconds: UInt64, status: Int32, maxRSSKiB: Int, output: String)
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
            return (0, -1, 0, "")
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
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        return (elapsed, exitCode, Int(usage.ru_maxrss), String(decoding: output, as: UTF8.self))
    }

    /// This process's peak resident set size in KiB.
    static var selfMaxRSSKiB: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}
