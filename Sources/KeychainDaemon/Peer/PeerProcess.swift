import Foundation

/// The process at the other end of a connection, held so that a pid recycled by another process
/// is never taken for it.
///
/// - With a pidfd (`SO_PEERPIDFD`, Linux 6.5): the pidfd refers to the kernel's `struct pid` the
///   socket recorded when the peer connected, never to a later process with the same number. A
///   pid number stays bound to one `struct pid` from the process's creation until it is reaped,
///   and is only then free for reuse. So if, after reading `/proc/<pid>/…`, the pidfd's process
///   has still not exited (`ProcessCalls.hasExited`: its pidfd does not poll readable), the number
///   was that process's for the whole time, and what was read is its own. Exited counts from
///   termination (a zombie counts as exited): a zombie's files are gone anyway.
/// - Without one (older kernels): the process's start time (`/proc/<pid>/stat`, field 22, in
///   clock ticks since boot) is read before and after; a process that took the number meanwhile
///   has another start time. This does not see a number reused between the peer's `connect` and
///   the first reading: the kernel hands out pid numbers in increasing order and wraps at
///   `kernel.pid_max`, so that takes the peer exiting and every other number being used in that
///   interval.
final class PeerProcess: Sendable {
    /// The process id (in the daemon's pid namespace).
    let pid: Int32
    /// How the process is held.
    let hold: Hold
    /// Where /proc is (another directory only in tests).
    let proc: String

    /// How the process is held across readings.
    enum Hold: Sendable, Equatable {
        /// A pidfd for it.
        case pidfd(Int32)
        /// Its start time in clock ticks since boot.
        case startTime(UInt64)
    }

    /// Holds the peer of `socket`, whose credentials name `pid`; `usePidfd: false` takes the
    /// fallback a kernel without `SO_PEERPIDFD` gets.
    init(socket: Int32, pid: Int32, usePidfd: Bool, proc: String = "/proc") throws {
        self.pid = pid
        self.proc = proc
        if usePidfd, let pidfd = try ProcessCalls.peerPidfd(socket: socket) {
            hold = .pidfd(pidfd)
            // The pidfd names the pid the credentials name (both come from the socket's record
            // of its peer); its fdinfo says so, or -1 once the process has exited.
            guard try Self.pid(ofPidfd: pidfd) == pid else {
                throw ProcessCallError(message: "the caller exited before it could be identified", number: ESRCH)
            }
        } else {
            hold = .startTime(try Self.startTime(of: pid, proc: proc))
        }
    }

    deinit {
        if case .pidfd(let descriptor) = hold { ProcessCalls.close(descriptor) }
    }

    /// Whether the process that connected is still the one `pid` names.
    var isStillRunning: Bool {
        switch hold {
        case .pidfd(let descriptor): return !ProcessCalls.hasExited(pidfd: descriptor)
        case .startTime(let started): return (try? Self.startTime(of: pid, proc: proc)) == started
        }
    }

    /// The `Pid:` line of the pidfd's `/proc/self/fdinfo` entry (-1 once its process exited).
    static func pid(ofPidfd descriptor: Int32) throws -> Int32? {
        guard let info = try ProcessCalls.readSmallFile("/proc/self/fdinfo/\(descriptor)", limit: 16384) else { return nil }
        for line in String(decoding: info, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Pid:") {
            return Int32(line.dropFirst(4).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// Field 22 of `/proc/<pid>/stat`: the process's start time in clock ticks since boot. The
    /// fields are counted after the command name's closing parenthesis, since the name itself
    /// may hold spaces and parentheses.
    static func startTime(of pid: Int32, proc: String = "/proc") throws -> UInt64 {
        guard let stat = try ProcessCalls.readSmallFile("\(proc)/\(pid)/stat", limit: 4096) else {
            throw ProcessCallError(message: "the caller exited before it could be identified", number: ESRCH)
        }
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else {
            throw ProcessCallError(message: "the caller's process status is malformed", number: EINVAL)
        }
        // After ") " come fields 3 (state), 4, …: field 22 is the 20th of them.
        let fields = stat[stat.index(after: close)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20, let started = UInt64(String(decoding: fields[fields.startIndex + 19], as: UTF8.self)) else {
            throw ProcessCallError(message: "the caller's process status is malformed", number: EINVAL)
        }
        return started
    }
}
