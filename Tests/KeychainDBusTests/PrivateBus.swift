import Foundation
import KeychainDBus

/// A `dbus-daemon` of a test's own, on a socket in a private directory (or in the abstract
/// namespace), ended with the test.
final class PrivateBus {
    let directory: String
    /// The bus's address.
    let address: String
    private let process: Process

    init(abstract: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dbus-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        address = abstract ? "unix:abstract=keychain-dbus-test-\(UUID().uuidString)" : "unix:path=\(directory)/bus"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--address=\(address)", "--nofork", "--nopidfile"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<2_000 {
            if let connection = try? DBusConnection(address: DBusAddress(address)) {
                connection.close()
                return
            }
            usleep(5_000)
        }
        throw DBusError.connectionFailed("the test's dbus-daemon did not answer")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Ends the bus with SIGKILL, as a crash would (its clients see their connections close).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A new connection to the bus.
    func connect() throws -> DBusConnection {
        try DBusConnection(address: DBusAddress(address))
    }

    /// Runs `gdbus` (another D-Bus implementation: GLib's) against the bus; returns its exit status.
    @discardableResult
    func gdbus(_ arguments: String...) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        // `--session` with the bus's address in the environment: with `--address` gdbus speaks to a
        // peer, not a bus (it sends no Hello, so the bus drops what it sends).
        process.arguments = [arguments[0], "--session"] + arguments.dropFirst()
        process.environment = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
