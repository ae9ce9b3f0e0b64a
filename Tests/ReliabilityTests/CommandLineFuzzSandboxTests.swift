import Foundation
import Testing

/// The command-line fuzz target's stored inputs, replayed in a sandbox of their own, where the
/// target runs every command (keychains, preferences and files included), as `scripts/fuzz`
/// runs it. `FuzzRegressionTests` replays them in this process too, where the target runs only
/// the commands that touch no file.
@Suite("Command-line fuzz inputs in a sandbox")
struct CommandLineFuzzSandboxTests {
    @Test("every stored command-line input runs, every command included, in a sandboxed process without a failure")
    func storedInputsRunEveryCommandInASandbox() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            CommandLineFuzzSandboxTests.replayInSandbox()
        }
        let lines = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self).split(separator: "\n")
        for failure in lines where failure.hasPrefix("failed: ") {
            Issue.record("\(failure)")
        }
        let ran = lines.last.flatMap { $0.split(separator: " ").first }.flatMap { Int($0) } ?? 0
        #expect(ran > 0, "no command that touches files ran: \(lines)")
    }

    /// In the exit test's own process: makes a sandbox (home, keychain directory and working
    /// directory in a fresh temporary directory), points the environment and the working
    /// directory at it, replays every stored input, and prints each failure (`failed: <input>:
    /// <property>`), then how many file-touching command lines ran.
    static func replayInSandbox() {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-sandbox-\(UUID().uuidString)").path
        for directory in ["home", "data", "work"] {
            try? FileManager.default.createDirectory(
                atPath: root + "/" + directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        setenv("KEYCHAIN_FUZZ_SANDBOX", root, 1)
        setenv("HOME", root + "/home", 1)
        setenv("XDG_DATA_HOME", root + "/data", 1)
        unsetenv("KEYCHAIN_ENTITLEMENTS")
        guard FileManager.default.changeCurrentDirectoryPath(root + "/work"), CommandLineFuzzSandbox.current() != nil else {
            print("failed: the sandbox could not be entered")
            return
        }
        let directory = FuzzRegressionTests.inputs.appendingPathComponent(FuzzTarget.commandLine.rawValue)
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        for file in files {
            do {
                try FuzzTarget.commandLine.run(try Data(contentsOf: directory.appendingPathComponent(file)))
            } catch {
                print("failed: \(file): \(String(describing: error).replacingOccurrences(of: "\n", with: " ⏎ "))")
            }
        }
        print("\(CommandLineFuzzer.fileCommandsRun.load(ordering: .relaxed)) file-touching command lines ran, \(files.count) inputs")
    }
}
