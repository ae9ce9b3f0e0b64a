import Foundation
import KeychainDBus
import KeychainTestSupport

/// A private bus standing for the system bus, with python-dbusmock's `logind` template serving
/// `org.freedesktop.login1` on it: a test starts keychaind with `DBUS_SYSTEM_BUS_ADDRESS` set to
/// `address`, adds sessions and makes logind emit its signals through the mock's own methods.
final class LogindBus {
    let directory: String
    /// The mock's log: one line per call it served (`Get <path> <interface>.<property>`, …).
    let mockLog: String
    private let bus: PrivateBus
    private var mock: Process?

    /// The bus's address.
    var address: String { bus.address }
    /// The test's own connection, which drives the mock.
    private var connection: DBusConnection { bus.connection }

    static let manager = "/org/freedesktop/login1"
    static let mockInterface = "org.freedesktop.DBus.Mock"

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("logind-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        mockLog = directory + "/logind-mock.log"
        bus = try PrivateBus(directory: directory)
        // Debian's python3-dbusmock (the system python, not one a version manager put first).
        mock = try QuietProcess.start("/usr/bin/python3", ["-m", "dbusmock", "--template", "logind", "-l", mockLog],
                                      environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"])
        for _ in 0..<4_000 {
            if bus.owner(of: "org.freedesktop.login1") != nil { return }
            usleep(5_000)
        }
        throw DBusError.connectionFailed("python3-dbusmock's logind did not appear on the bus")
    }

    deinit {
        QuietProcess.end(mock)
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Kills the bus (SIGKILL): every connection to it breaks.
    func stopBus() {
        bus.stop()
    }

    /// Adds a login session `id` of `uid` (dbusmock's `AddSession`); returns its object path.
    func addSession(_ id: String, uid: UInt32) throws -> String {
        let reply = try connection.callSynchronously(
            destination: "org.freedesktop.login1", path: Self.manager, interface: Self.mockInterface, member: "AddSession",
            arguments: [.string(id), .string("seat0"), .uint32(uid), .string("user\(uid)"), .boolean(true)])
        guard let path = reply.first?.text else { throw DBusError.invalidMessage("AddSession answered no path") }
        return path
    }

    /// Makes logind emit `Manager.PrepareForSleep(starting)`.
    func prepareForSleep(_ starting: Bool) throws {
        try emit(path: Self.manager, interface: "org.freedesktop.login1.Manager", member: "PrepareForSleep", signature: "b",
                 [.boolean(starting)])
    }

    /// Makes logind emit `Session.Lock` from the session at `path`.
    func lock(session path: String) throws {
        try emit(path: path, interface: "org.freedesktop.login1.Session", member: "Lock", signature: "", [])
    }

    private func emit(path: String, interface: String, member: String, signature: String, _ arguments: [DBusValue]) throws {
        _ = try connection.callSynchronously(
            destination: "org.freedesktop.login1", path: path, interface: Self.mockInterface, member: "EmitSignal",
            arguments: [.string(interface), .string(member), .string(signature), .array(.variant, arguments.map(DBusValue.variant))])
    }

    /// The unique bus name of the connection process `pid` holds; nil if it holds none.
    func uniqueName(ofProcess pid: Int32) throws -> String? {
        let driver = (destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus")
        let names = try connection.callSynchronously(
            destination: driver.destination, path: driver.path, interface: driver.interface, member: "ListNames"
        ).first?.elements?.compactMap(\.text) ?? []
        for name in names where name.hasPrefix(":") && name != connection.uniqueName {
            let owner = try? connection.callSynchronously(
                destination: driver.destination, path: driver.path, interface: driver.interface,
                member: "GetConnectionUnixProcessID", arguments: [.string(name)])
            if owner?.first?.uint32 == UInt32(bitPattern: pid) { return name }
        }
        return nil
    }

    /// Sends `destination` a signal as if from logind, from the test's own connection (not
    /// logind's owner).
    func spoof(to destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue]) throws {
        var signal = DBusMessage.signal(path: path, interface: interface, member: member, arguments: arguments)
        signal.destination = destination
        try connection.send(signal)
    }

    /// Waits until the mock's log has a line containing `text`; false if it never comes.
    func waitForMockLog(containing text: String) -> Bool {
        for _ in 0..<3_000 {
            if let log = try? String(contentsOfFile: mockLog, encoding: .utf8), log.contains(text) { return true }
            usleep(10_000)
        }
        return false
    }
}
