import Foundation
@_spi(Testing) import KeychainCore

import KeychainService

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What one run of the built `security` binary produced.
struct ToolRun: Sendable {
    /// The exit status.
    let status: Int32
    /// Standard output, as bytes.
    let outputBytes: [UInt8]
    /// Standard error, as text.
    let error: String

    /// Standard output, as text.
    var output: String { String(decoding: outputBytes, as: UTF8.self) }
}

/// Runs the real `security` executable that `swift test` builds next to the test bundle, each
/// time in a private keychain directory (`XDG_DATA_HOME` set in the child's environment only).
final class SecurityBinary: Sendable {
    /// The temporary `XDG_DATA_HOME` of this instance.
    let home: String
    /// Where the default keychain of this instance lives.
    var defaultKeychainPath: String { home + "/swift-keychain/login.keychain-db" }

    /// In daemon mode, the socket of this instance's own `keychaind`.
    let daemonSocket: String?

    /// In daemon mode (`KEYCHAIN_MODE=daemon`) the runs go through a `keychaind` of this
    /// instance's own (started by the first run, on a private socket, ended with the instance):
    /// `startsLocked()` may restart it, and no other test's restart of the user's daemon (the
    /// API tests' `SecDataProtectionTesting.restart()`) lands in the middle of a run.
    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("security-cli-tests")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        home = base.appendingPathComponent(UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        daemonSocket = Self.throughDaemon ? "/tmp/kcd-cli-\(UUID().uuidString.prefix(8))/\(ServiceLocation.socketName)" : nil
    }

    deinit {
        stopOwnDaemon()
        if let daemonSocket { try? FileManager.default.removeItem(atPath: (daemonSocket as NSString).deletingLastPathComponent) }
        try? FileManager.default.removeItem(atPath: home)
    }

    /// Whether the runs reach their keychains through `keychaind` (`KEYCHAIN_MODE=daemon`).
    static var throughDaemon: Bool { (try? ServiceLocation.requestedMode()) == .daemon }

    /// What each run gets in its environment besides `XDG_DATA_HOME`.
    var environment: [String: String] {
        daemonSocket.map { [ServiceLocation.socketVariable: $0] } ?? [:]
    }

    /// The next run starts with every keychain locked, as a new process does when it opens the
    /// keychain itself. In daemon mode the lock state is the daemon's: this instance's daemon is
    /// ended (a restart of the machine, as far as the keychain's keys go) and the next run starts
    /// a new one.
    func startsLocked() {
        stopOwnDaemon()
    }

    /// Runs `body`, which opens the keychain at `path` in this test process (as a second program
    /// would), with no daemon holding it: in daemon mode this instance's daemon is ended first, and
    /// the test's instance is dropped after, so the next run's daemon can hold the keychain again.
    func withKeychainInProcess<T>(_ path: String, _ body: () throws -> T) rethrows -> T {
        stopOwnDaemon()
        defer { Keychain.forgetOpenInstance(path: path) }
        return try body()
    }

    /// Ends this instance's daemon, if it runs, and waits until it is gone (its lock released).
    private func stopOwnDaemon() {
        guard let daemonSocket else { return }
        var sent = false
        while true {
            let descriptor = open(daemonSocket + ".lock", O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            let held = flock(descriptor, LOCK_EX | LOCK_NB) != 0
            close(descriptor)
            guard held else { return }
            if !sent, let text = try? String(contentsOfFile: daemonSocket + ".lock", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGTERM)
                sent = true
            }
            usleep(1_000)
        }
    }

    /// The built executable: next to the test bundle (the directory of `CommandLine.arguments[0]`
    /// or of the main bundle).
    static let executableURL: URL = {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            let url = directory.appendingPathComponent("security")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        fatalError("the security executable was not built next to the tests (looked in \(candidates))")
    }()

    /// Starts the tool; `finish` waits for it.
    func start(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) throws -> RunningTool {
        try RunningTool(arguments, input: input.map { Array($0.utf8) } ?? [], home: home, extra: environment.merging(extra) { $1 })
    }

    /// Runs the tool to completion.
    func run(_ arguments: String..., input: String? = nil) throws -> ToolRun {
        try start(arguments, input: input).finish()
    }

    /// Runs the tool to completion with an argument array.
    func run(arguments: [String], input: String? = nil) throws -> ToolRun {
        try start(arguments, input: input).finish()
    }
}

/// A started `security` process whose streams are temporary files (no pipe can fill up).
final class RunningTool {
    private let process = Process()
    private let directory: URL

    init(_ arguments: [String], input: [UInt8], home: String, extra: [String: String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("security-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let inputURL = directory.appendingPathComponent("stdin")
        try Data(input).write(to: inputURL)
        try Data().write(to: directory.appendingPathComponent("stdout"))
        try Data().write(to: directory.appendingPathComponent("stderr"))

        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home
        environment["KEYCHAIN_ENTITLEMENTS"] = nil
        environment.merge(extra) { $1 }
        process.executableURL = SecurityBinary.executableURL
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: home)
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = try FileHandle(forWritingTo: directory.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: directory.appendingPathComponent("stderr"))
        try process.run()
    }

    /// Waits for the process and collects what it wrote.
    func finish() throws -> ToolRun {
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = try Data(contentsOf: directory.appendingPathComponent("stdout"))
        let error = try Data(contentsOf: directory.appendingPathComponent("stderr"))
        return ToolRun(
            status: process.terminationStatus, outputBytes: [UInt8](output),
            error: String(decoding: error, as: UTF8.self))
    }
}


extension SecurityBinary {
    /// Runs the tool with arguments given as bytes, which need not be UTF-8 (`Process` takes
    /// `String`s and cannot pass them), in this instance's keychain directory and working
    /// directory, with `input` on standard input.
    func run(rawArguments: [[UInt8]], input: [UInt8] = []) throws -> ToolRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("security-raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputPath = directory.appendingPathComponent("stdin").path
        let outputPath = directory.appendingPathComponent("stdout").path
        let errorPath = directory.appendingPathComponent("stderr").path
        try Data(input).write(to: URL(fileURLWithPath: inputPath))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Not in the Glibc module map: looked up in libc, as `PseudoTerminal` does.
        typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            throw CocoaError(.featureUnsupported)
        }
        _ = unsafeBitCast(symbol, to: AddChangeDirectory.self)(&actions, home)

        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home
        environment["KEYCHAIN_ENTITLEMENTS"] = nil
        environment.merge(self.environment) { $1 }
        let executable = SecurityBinary.executableURL.path
        let argv: [UnsafeMutablePointer<CChar>?] = ([Array(executable.utf8)] + rawArguments).map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { $0?.deallocate() }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let started = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard started == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let output = try Data(contentsOf: URL(fileURLWithPath: outputPath))
        let error = try Data(contentsOf: URL(fileURLWithPath: errorPath))
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ToolRun(status: exitStatus, outputBytes: [UInt8](output), error: String(decoding: error, as: UTF8.self))
    }
}
