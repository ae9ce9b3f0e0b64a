import Foundation
import Glibc
import KeychainDBus
import Testing

/// A private bus standing for the machine's system bus, which every user may use (the service
/// user and the test users connect to it as the real system bus lets them), with the scripted
/// fprintd (`Tests/TestDoubles/fprintd-double`) on it.
final class SharedFprintdBus {
    let directory: String
    let address: String
    private var processes: [Process] = []
    private let connection: DBusConnection

    static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("TestDoubles/fprintd-double").path
    }()

    init() throws {
        directory = "/tmp/kc-fprintd-bus-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let socket = directory + "/system_bus_socket"
        address = "unix:path=\(socket)"
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/bus.conf"))
        processes.append(try Self.start("/usr/bin/dbus-daemon", ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"]))
        var bus: DBusConnection?
        for _ in 0..<2_000 where bus == nil {
            bus = try? DBusConnection(address: DBusAddress(address))
            if bus == nil { usleep(5_000) }
        }
        guard let bus else { throw DBusError.connectionFailed("the test's dbus-daemon did not answer") }
        connection = bus
        _ = chmod(socket, 0o777)
        processes.append(try Self.start("/usr/bin/python3", [Self.script], environment: ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]))
        for _ in 0..<4_000 {
            if (try? mock("Calls")) != nil { return }
            usleep(5_000)
        }
        throw DBusError.connectionFailed("the fprintd double did not appear on the bus")
    }

    deinit {
        connection.close()
        for process in processes.reversed() where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    @discardableResult
    private func mock(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try connection.callSynchronously(
            destination: "net.reactivated.Fprint", path: "/net/reactivated/Fprint/Manager", interface: "net.reactivated.Fprint.Mock",
            member: member, arguments: arguments, timeout: 10)
    }

    /// The statuses to emit after each `VerifyStart`, one list per start.
    func setScript(_ attempts: [[(String, Bool)]]) throws {
        let element = DBusType.structure([.string, .boolean])
        try mock("SetScript", [.array(.array(element), attempts.map { attempt in
            .array(element, attempt.map { .structure([.string($0.0), .boolean($0.1)]) })
        })])
    }

    /// Every call the double served, in order.
    func calls() throws -> [String] {
        try mock("Calls").first?.elements?.compactMap(\.text) ?? []
    }

    private static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

@Suite("keychaind --system and the fingerprint reader", .serialized)
struct SystemDaemonBiometryTests {
    @Test("keychaind --system verifies a user's finger by name: the user's LAContext, evaluated with one finger, reads a biometryCurrentSet item")
    func fingerOfTheServedUser() throws {
        let bus = try SharedFprintdBus()
        let fixture = try SystemDaemonFixture(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "KEYCHAIN_PINENTRY": "/nonexistent"])
        let user = fixture.first
        let add = try fixture.security(
            "add-generic-password", "-a", "me", "-s", "vault", "-w", "finger-secret", "-A", "biometryCurrentSet", as: user)
        try #require(add.status == 0, "\(add.error)")
        let passcode = try fixture.security("set-keychain-password", "-o", "", "-p", "4321", as: user)
        try #require(passcode.status == 0, "\(passcode.error)")
        try bus.setScript([[("verify-match", true)]])
        let read = try fixture.run(DaemonFixture.testClient, ["find-after-biometry", "vault", "me", "4321"], as: user)
        #expect(read.output == "evaluated\n0 finger-secret\n", "\(read.error)")
        let calls = try bus.calls()
        #expect(calls.contains("Claim \(user.name)"), "\(calls)")
        #expect(calls.contains("ListEnrolledFingers \(user.name)"), "\(calls)")
        #expect(calls.filter { $0 == "VerifyStart any" }.count == 1, "\(calls)")
    }
}
