import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts and ends the helper programs tests run beside themselves (a private bus, a scripted
/// service): their output goes nowhere, and they are killed with SIGKILL, since a test runner's
/// children may have SIGTERM blocked.
package enum QuietProcess {
    /// Runs `executable` with `arguments` (and `environment`, else the test's own), its standard
    /// output and error on /dev/null.
    package static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Kills `process` (SIGKILL) and reaps it; nothing when it is nil or already ended.
    package static func end(_ process: Process?) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
