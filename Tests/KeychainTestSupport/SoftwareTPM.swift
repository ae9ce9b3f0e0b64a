import Foundation
import KeychainHardware

#if canImport(Glibc)
import Glibc
#endif

/// A software TPM 2.0 (`swtpm` in socket mode) of the test's own: its state in a fresh temporary
/// directory, its command and control ports free loopback ports, started with
/// `not-need-init,startup-clear` so it answers at once. `tcti` is the `KEYCHAIN_TPM` value that
/// selects it. Stopped (SIGKILL) and its directory removed when released or `kill()`ed.
package final class SoftwareTPM: @unchecked Sendable {
    /// Why a TPM could not be started.
    package struct StartFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// `swtpm`'s path; the tests that need a TPM fail (not skip) without it: `.ci/run` installs it.
    package static let executable = ["/usr/bin/swtpm", "/usr/local/bin/swtpm"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The state directory.
    package let directory: URL
    /// The TPM command port (the control port is the next one).
    package let port: UInt16
    private var process: Process

    /// The TCTI string for `KEYCHAIN_TPM`.
    package var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// Starts a new TPM and waits until its command port accepts connections.
    package init() throws {
        guard let executable = Self.executable else {
            throw StartFailure(description: "swtpm is not installed (apt-get install swtpm swtpm-tools)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("swtpm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for _ in 0..<20 {
            guard let candidate = Self.freePortPair() else { continue }
            if let process = try Self.launch(executable, state: directory, port: candidate) {
                port = candidate
                self.process = process
                return
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw StartFailure(description: "swtpm did not start on a free port pair")
    }

    /// Kills the TPM and starts it again on the same state and port: the machine rebooted.
    package func restart() throws {
        kill()
        guard let executable = Self.executable, let process = try Self.launch(executable, state: directory, port: port) else {
            throw StartFailure(description: "swtpm did not restart on port \(port)")
        }
        self.process = process
    }

    /// Starts swtpm on `port` (commands) and `port + 1` (control); nil when it exits or does not
    /// listen (another process took the port).
    private static func launch(_ executable: String, state: URL, port: UInt16) throws -> Process? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "socket", "--tpm2", "--tpmstate", "dir=\(state.path)",
            "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
            "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1",
            "--flags", "not-need-init,startup-clear",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<500 where process.isRunning {
            if connects(to: port) { return process }
            usleep(10_000)
        }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return nil
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the TPM (SIGKILL): the next command to it fails as a vanished device would.
    package func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs `body` with this TPM selected on the calling thread (as `KEYCHAIN_TPM` selects one
    /// for a process), restoring the previous selection after.
    package func selected<T>(_ body: () throws -> T) rethrows -> T {
        try Self.withTCTI(tcti, body)
    }

    /// Runs `body` with `tcti` selected on the calling thread ("" for no TPM). The process's
    /// environment is left alone: other suites of this test process create keychains and start
    /// processes meanwhile, and a `KEYCHAIN_TPM` set here would bind their keychains to this
    /// test's TPM, which is gone once the test ends.
    package static func withTCTI<T>(_ tcti: String, _ body: () throws -> T) rethrows -> T {
        try TPMContext.withTCTI(tcti, body)
    }

    /// A port P such that P and P + 1 are free on loopback now.
    private static func freePortPair() -> UInt16? {
        let port = UInt16.random(in: 20_000...60_000)
        return isFree(port) && isFree(port + 1) ? port : nil
    }

    private static func isFree(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func connects(to port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
