#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// A process started with `posix_spawn`, its standard output and error going to files, so that
/// tests can kill it at an exact moment (SIGKILL) and read what it wrote.
final class ChildProcess {
    let pid: pid_t
    let outputPath: String
    let errorPath: String
    private let inputPath: String?
    private var status: Int32?

    /// Starts `executable` with `arguments`, in the test's environment plus `environment`.
    init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        in directory: String
    ) throws {
        let base = directory + "/child-\(UUID().uuidString)"
        outputPath = base + ".out"
        errorPath = base + ".err"
        let inputPath = input.map { _ in base + ".in" }
        self.inputPath = inputPath
        if let input, let inputPath { try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var merged = ProcessInfo.processInfo.environment
        merged["KEYCHAIN_ENTITLEMENTS"] = nil
        merged.merge(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw ChildProcessError("posix_spawn \(executable) failed: \(result)") }
        pid = child
    }

    deinit {
        if status == nil {
            kill()
            wait()
        }
        unlink(outputPath)
        unlink(errorPath)
        if let inputPath { unlink(inputPath) }
    }

    /// Sends SIGKILL.
    func kill() { _ = Glibc.kill(pid, SIGKILL) }

    /// Whether the process has exited (reaping it if so).
    var hasExited: Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            status = raw
            return true
        }
        return false
    }

    /// Waits for the process to end; returns the raw wait status.
    @discardableResult
    func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        status = raw
        return raw
    }

    /// Waits until the process stops itself (SIGSTOP); false if it ended instead.
    func waitUntilStopped() -> Bool {
        var raw: Int32 = 0
        while waitpid(pid, &raw, WUNTRACED) < 0 && errno == EINTR {}
        if raw & 0xff == 0x7f { return true }
        status = raw
        return false
    }

    /// Resumes a stopped process.
    func resume() { _ = Glibc.kill(pid, SIGCONT) }

    /// Waits at most `seconds`; false if the process is still running.
    func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasExited {
            if Date() > deadline { return false }
            usleep(2000)
        }
        return true
    }

    /// The exit code, or nil if the process died of a signal (or has not been waited for).
    var exitCode: Int32? {
        guard let status, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    /// The signal that ended the process, if one did.
    var terminatingSignal: Int32? {
        guard let status, status & 0x7f != 0, status & 0x7f != 0x7f else { return nil }
        return status & 0x7f
    }

    /// What the process wrote to standard output.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// What the process wrote to standard error.
    var error: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
}

struct ChildProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
