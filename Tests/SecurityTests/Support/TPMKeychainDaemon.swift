import Foundation
import KeychainService
import KeychainTestSupport

/// In daemon mode (`KEYCHAIN_MODE=daemon`), a `keychaind` of the test's own with the test's TPM
/// (`KEYCHAIN_TPM` in its environment, as a daemon started by a client on a machine with that TPM
/// has it), so the keys the keychain holds in the TPM are made and used by the daemon. The
/// test's `SecItem`/`SecKey` calls on its thread reach it (`serving`, which selects its socket),
/// and so do the `security` commands the test runs then (`TestMode.security`). The shared daemon
/// of the other tests never sees this TPM, which is gone once the test ends. Stopped (SIGTERM,
/// then waited for) when released.
final class TPMKeychainDaemon {
    /// Why the daemon could not be started.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The daemon's socket, in a private directory of its own.
    let socket: String
    private let directory: String
    private let process: Process

    /// Starts `keychaind` in the foreground with `tpm` as its TPM and waits until it answers.
    init(tpm: SoftwareTPM) throws {
        directory = "/tmp/kcd-tpm-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        socket = directory + "/" + ServiceLocation.socketName
        var environment = ProcessInfo.processInfo.environment
        environment["KEYCHAIN_TPM"] = tpm.tcti
        environment[ServiceLocation.socketVariable] = socket
        process = Process()
        process.executableURL = URL(fileURLWithPath: (TestMode.testExecutable as NSString).deletingLastPathComponent + "/keychaind")
        process.arguments = ["--foreground", "--socket", socket, "--idle-exit", "0"]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<2_000 where process.isRunning {
            if (try? UnixSocket.connect(to: socket)) != nil { return }
            usleep(5_000)
        }
        stop()
        try? FileManager.default.removeItem(atPath: directory)
        throw StartFailure(description: "keychaind with the test's TPM did not answer on \(socket)")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `body` with this daemon serving the keychains the calling thread opens.
    func serving<T>(_ body: () throws -> T) rethrows -> T {
        try ServiceLocation.withSocket(socket, body)
    }

    /// Ends the daemon (SIGTERM: it exits normally) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
