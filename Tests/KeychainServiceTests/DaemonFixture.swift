import Foundation
import KeychainService

/// A `keychaind` of a test's own (its own socket, keychain directory and home), started in the
/// foreground, and the programs that talk to it: the `security` command built beside it (the
/// daemon's administration tool) and `keychain-test-client` (an app using `import Security`).
final class DaemonFixture {
    /// The directory holding everything of the test (0700).
    let root: String
    let socket: String
    let dataHome: String
    private(set) var daemon: Process?
    private let flatpakInfo: String?
    /// Variables added to every program's environment (a system bus address, …).
    private let extraEnvironment: [String: String]
    /// The daemon's standard error, kept across restarts.
    var daemonLog: String { root + "/keychaind.log" }

    /// The directory of the built products.
    static let products = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
        .components(separatedBy: "/").dropLast().joined(separator: "/")
    static let securityTool = products + "/security"
    static let testClient = products + "/keychain-test-client"

    init(flatpakInfo: String? = nil, environment extraEnvironment: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("keychaind-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        socket = root + "/run/keychaind.sock"
        dataHome = root + "/data"
        self.flatpakInfo = flatpakInfo
        self.extraEnvironment = extraEnvironment
        try startDaemon()
    }

    deinit {
        killDaemon()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The environment of every program the test runs: the daemon mode on this fixture's socket.
    var environment: [String: String] {
        [
            "KEYCHAIN_MODE": "daemon", "KEYCHAIND_SOCKET": socket, "XDG_DATA_HOME": dataHome, "HOME": root,
            "PATH": "/usr/bin:/bin", "KEYCHAIND_PATH": Self.products + "/keychaind",
        ].merging(extraEnvironment) { _, extra in extra }
    }

    /// Starts the daemon in the foreground and waits until its socket answers.
    func startDaemon() throws {
        var arguments = ["--foreground", "--socket", socket, "--idle-exit", "0"]
        if let flatpakInfo { arguments += ["--test-flatpak-info", flatpakInfo] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.products + "/keychaind")
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        if !FileManager.default.fileExists(atPath: daemonLog) { FileManager.default.createFile(atPath: daemonLog, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: daemonLog))
        log.seekToEndOfFile()
        process.standardError = log
        try process.run()
        daemon = process
        for _ in 0..<2_000 {
            if (try? UnixSocket.connect(to: socket)) != nil { return }
            usleep(5_000)
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "keychaind did not answer"])
    }

    /// Kills the daemon with SIGKILL (a crash) and waits for it.
    func killDaemon() {
        guard let daemon, daemon.isRunning else { return }
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        self.daemon = nil
    }

    /// What a program printed, and its exit status.
    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs `executable` with `arguments` in the fixture's environment.
    func run(_ executable: String, _ arguments: [String], input: String = "") throws -> Run {
        let output = root + "/out-\(UUID().uuidString)", errors = root + "/err-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let inputPipe = Pipe()
        let process = try ExecutableFile.launch {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: root)
            process.standardInput = inputPipe
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            return process
        }
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try inputPipe.fileHandleForWriting.close()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            output: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    /// Runs the `security` command.
    func security(_ arguments: String..., input: String = "") throws -> Run {
        try run(Self.securityTool, arguments, input: input)
    }

    /// Runs an app (`keychain-test-client` or a copy of it) and returns what it printed.
    func app(_ executable: String = DaemonFixture.testClient, _ arguments: String...) throws -> String {
        try run(executable, arguments).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A copy of the test client at `name` in the fixture's directory: a program of its own.
    func copyOfTestClient(named name: String) throws -> String {
        let path = root + "/" + name
        try ExecutableFile.copy(Self.testClient, to: path)
        return path
    }

    /// Writes an entitlements property list granting `groups`.
    func entitlements(_ groups: [String], named name: String) throws -> String {
        let path = root + "/" + name
        let body = groups.map { "        <string>\($0)</string>\n" }.joined()
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>keychain-access-groups</key>
                <array>
            \(body)    </array>
            </dict>
            </plist>

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
