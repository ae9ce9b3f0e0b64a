import Foundation
import KeychainAuthentication
import KeychainDBus

#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` standing for the system bus, with the scripted fprintd
/// (`Tests/TestDoubles/fprintd-double`, a Python D-Bus service) owning `net.reactivated.Fprint`
/// on it. The test drives the double through its `net.reactivated.Fprint.Mock` methods; both
/// processes are killed (SIGKILL) when the fixture goes.
package final class FprintdDouble {
    /// The directory holding the bus's socket and the double's log.
    package let directory: String
    private let bus: PrivateBus
    private var service: Process?

    /// The bus's address.
    package var address: String { bus.address }
    /// The test's own connection.
    package var connection: DBusConnection { bus.connection }

    static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("TestDoubles/fprintd-double").path
    }()
    package static let manager = "/net/reactivated/Fprint/Manager"
    package static let device = "/net/reactivated/Fprint/Device/0"
    static let mock = "net.reactivated.Fprint.Mock"

    /// Starts the bus and the double; with `.everyone`, daemons of other users (a system
    /// keychaind's) may use the bus too.
    package init(audience: PrivateBus.Audience = .owner) throws {
        let shared = audience == .everyone
        directory = (shared ? "/tmp/kc-fprintd-bus-" : NSTemporaryDirectory() + "fprintd-test-") + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: shared ? 0o755 : 0o700])
        bus = try PrivateBus(directory: directory, audience: audience)
        try startService()
    }

    deinit {
        QuietProcess.end(service)
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the double (again, after `stopService`) and waits until it owns its name.
    package func startService() throws {
        // Debian's python3 (with python3-dbus), not one a version manager put first in PATH.
        service = try QuietProcess.start("/usr/bin/python3", [Self.script, directory + "/fprintd.log"],
                                 environment: ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"])
        for _ in 0..<4_000 {
            if owner() != nil { return }
            usleep(5_000)
        }
        throw DBusError.connectionFailed("the fprintd double did not appear on the bus")
    }

    /// Kills the double (SIGKILL), as a crash of fprintd would.
    package func stopService() {
        QuietProcess.end(service)
        service = nil
    }

    /// Stops the double (SIGSTOP): it keeps its name and its connection but answers nothing.
    package func freezeService() {
        guard let service, service.isRunning else { return }
        kill(service.processIdentifier, SIGSTOP)
    }

    /// A verifier speaking to the double, waiting `touchTimeout` seconds for a finger and
    /// `callTimeout` seconds for each answer.
    package func verifier(touchTimeout: Double = 30, callTimeout: Double = 5) -> FprintdVerifier {
        FprintdVerifier(environment: ["DBUS_SYSTEM_BUS_ADDRESS": address], touchTimeout: touchTimeout, callTimeout: callTimeout)
    }

    /// The unique name owning `net.reactivated.Fprint`.
    package func owner() -> String? {
        bus.owner(of: "net.reactivated.Fprint")
    }

    private func mock(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try connection.callSynchronously(
            destination: "net.reactivated.Fprint", path: Self.manager, interface: Self.mock, member: member, arguments: arguments,
            timeout: 10)
    }

    /// A reader named `name`, or none.
    package func setReader(present: Bool, name: String = "Double Fingerprint Reader") throws {
        _ = try mock("SetReader", [.boolean(present), .string(name)])
    }

    /// The user's enrolled fingers.
    package func setEnrolled(_ fingers: [String]) throws {
        _ = try mock("SetEnrolled", [.array(.string, fingers.map(DBusValue.string))])
    }

    /// The statuses to emit after each `VerifyStart`, one list per start.
    package func setScript(_ attempts: [[(String, Bool)]]) throws {
        let element = DBusType.structure([.string, .boolean])
        let value = DBusValue.array(.array(element), attempts.map { attempt in
            .array(element, attempt.map { .structure([.string($0.0), .boolean($0.1)]) })
        })
        _ = try mock("SetScript", [value])
    }

    /// Makes `Claim` fail with `net.reactivated.Fprint.Error.<name>` ("" for none).
    package func setClaimError(_ name: String) throws {
        _ = try mock("SetClaimError", [.string(name)])
    }

    /// Makes the double emit one `VerifyStatus` now.
    package func emitStatus(_ result: String, done: Bool) throws {
        _ = try mock("EmitStatus", [.string(result), .boolean(done)])
    }

    /// Every call the double served, in order (`Claim `, `VerifyStart any`, `VerifyStop`, …).
    package func calls() throws -> [String] {
        try mock("Calls").first?.elements?.compactMap(\.text) ?? []
    }

    /// Waits until the double has served `count` calls equal to `call`; false if they do not come
    /// within about `seconds`.
    package func waitForCalls(_ call: String, count: Int = 1, seconds: Int = 30) -> Bool {
        for _ in 0..<(seconds * 100) {
            if let calls = try? calls(), calls.filter({ $0 == call }).count >= count { return true }
            usleep(10_000)
        }
        return false
    }

    /// The unique names on the bus of connections this process holds, besides the test's own.
    package func ownConnections() throws -> [String] {
        let names = try connection.callSynchronously(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames", timeout: 5
        ).first?.elements?.compactMap(\.text) ?? []
        return names.filter { name in
            guard name.hasPrefix(":"), name != connection.uniqueName else { return false }
            let pid = try? connection.callSynchronously(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetConnectionUnixProcessID", arguments: [.string(name)], timeout: 5
            ).first?.uint32
            return pid == UInt32(bitPattern: getpid())
        }
    }

    /// Sends `destination` a `VerifyStatus` with fprintd's path and interface from the test's
    /// own connection (not fprintd's owner).
    package func spoofStatus(to destination: String, _ result: String, done: Bool) throws {
        var signal = DBusMessage.signal(
            path: Self.device, interface: "net.reactivated.Fprint.Device", member: "VerifyStatus",
            arguments: [.string(result), .boolean(done)])
        signal.destination = destination
        try connection.send(signal)
    }
}
