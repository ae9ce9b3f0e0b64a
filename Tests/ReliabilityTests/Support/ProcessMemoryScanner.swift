import Foundation

/// Finds copies of a byte string in another process's writable memory (heap, stacks, anonymous
/// mappings, data sections) through `/proc/<pid>/mem`; the process should be stopped.
///
/// A freed heap block's first bytes are overwritten by the allocator's free-list pointers, so a
/// copy counts when its first or its last 16 bytes are found.
struct ProcessMemoryScanner {
    let pid: Int32

    /// Whether this process may read its children's memory: as root, or when Yama's
    /// `ptrace_scope` lets a parent read its descendants (0 or 1, or no Yama at all).
    static var isPermitted: Bool {
        if getuid() == 0 { return true }
        guard let scope = try? String(contentsOfFile: "/proc/sys/kernel/yama/ptrace_scope", encoding: .utf8) else {
            return true
        }
        return (Int(scope.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 3) <= 1
    }

    /// System calls a thread of a daemon waits in when it has nothing to do: accepting or
    /// receiving on a socket, waiting on a lock or a signal, sleeping (x86-64 numbers).
    static let idleSystemCalls: Set<Int> = [0, 7, 23, 34, 35, 43, 45, 47, 61, 128, 130, 202, 230, 232, 270, 271, 281, 288]

    /// Stops `pid` (SIGSTOP) at a moment when every one of its threads waits in a system call of
    /// `idleSystemCalls`: work it was still doing after its last answer (zeroing what it sent,
    /// say) is then finished. A stop that finds a thread in user space or in another call is
    /// undone (SIGCONT) and tried again a little later.
    ///
    /// - Throws: `ChildProcessError` when the process never reaches such a moment.
    static func stopWhenIdle(_ pid: Int32, attempts: Int = 3_000) throws {
        for _ in 0..<attempts {
            kill(pid, SIGSTOP)
            if allThreadsStopped(pid), threadsWaitIdle(pid) { return }
            kill(pid, SIGCONT)
            usleep(2_000)
        }
        throw ChildProcessError("process \(pid) never became idle")
    }

    /// Whether every thread of `pid` has taken the stop (state `T`), waiting for it a moment.
    private static func allThreadsStopped(_ pid: Int32) -> Bool {
        for _ in 0..<1_000 {
            let states = threads(of: pid).compactMap { tid -> Character? in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return nil }
                return stat[stat.index(close, offsetBy: 2)...].first
            }
            if !states.isEmpty && states.allSatisfy({ $0 == "T" || $0 == "t" }) { return true }
            usleep(500)
        }
        return false
    }

    /// Whether every thread of the stopped `pid` waits in an idle system call.
    private static func threadsWaitIdle(_ pid: Int32) -> Bool {
        threads(of: pid).allSatisfy { tid in
            guard let call = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/syscall", encoding: .utf8),
                let number = call.split(separator: " ").first.flatMap({ Int($0) })
            else { return false }  // "running", or -1: in user space
            return idleSystemCalls.contains(number)
        }
    }

    private static func threads(of pid: Int32) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    }

    /// Where copies of `secret` start, with the mapping (a `/proc/<pid>/maps` line) each lies in.
    func copies(of secret: [UInt8]) throws -> [(address: UInt, mapping: String)] {
        precondition(secret.count >= 32)
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let memory = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard memory >= 0 else { throw ChildProcessError("cannot open /proc/\(pid)/mem (errno \(errno))") }
        defer { close(memory) }
        let head = Array(secret.prefix(16))
        let tail = Array(secret.suffix(16))
        var found: [UInt: String] = [:]
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("rw"), !line.hasSuffix("[vvar]"), !line.hasSuffix("[vsyscall]")
            else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            var buffer = [UInt8](repeating: 0, count: Int(bounds[1] - bounds[0]))
            let read = buffer.withUnsafeMutableBytes { pread(memory, $0.baseAddress, $0.count, off_t(bounds[0])) }
            guard read > 0 else { continue }
            for (pattern, shift) in [(head, 0), (tail, secret.count - 16)] {
                for offset in Self.occurrences(of: pattern, in: buffer, count: read) {
                    found[bounds[0] + UInt(offset) &- UInt(shift)] = String(line)
                }
            }
        }
        return found.map { ($0.key, $0.value) }.sorted { $0.address < $1.address }
    }

    private static func occurrences(of pattern: [UInt8], in buffer: [UInt8], count: Int) -> [Int] {
        var offsets: [Int] = []
        buffer.withUnsafeBytes { haystack in
            pattern.withUnsafeBytes { needle in
                var position = 0
                let first = Int32(needle[0])
                while position + needle.count <= count,
                    let hit = memchr(haystack.baseAddress! + position, first, count - needle.count + 1 - position)
                {
                    let offset = haystack.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    if memcmp(haystack.baseAddress! + offset, needle.baseAddress!, needle.count) == 0 {
                        offsets.append(offset)
                    }
                    position = offset + 1
                }
            }
        }
        return offsets
    }
}
