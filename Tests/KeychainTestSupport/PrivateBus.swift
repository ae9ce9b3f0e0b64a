import Foundation
import KeychainDBus

#if canImport(Glibc)
import Glibc
#endif

/// A `dbus-daemon` of the test's own, standing for the system bus: programs the test starts find
/// it through `DBUS_SYSTEM_BUS_ADDRESS` set to `address`. The bus is killed when the value goes.
package final class PrivateBus {
    /// Who may connect.
    package enum Audience {
        /// The test's own user (a session bus's policy).
        case owner
        /// Every user (a system bus's policy, allowing everything): for daemons that serve or run
        /// as other users.
        case everyone
    }

    /// The directory holding the bus's socket (the caller's, removed by the caller).
    package let directory: String
    /// The bus's address.
    package let address: String
    /// The test's own connection to the bus.
    package let connection: DBusConnection
    private var process: Process?

    /// Starts a bus listening in `directory` and connects to it.
    package init(directory: String, audience: Audience = .owner) throws {
        self.directory = directory
        let socket = directory + "/system_bus_socket"
        address = "unix:path=\(socket)"
        switch audience {
        case .owner:
            process = try QuietProcess.start("/usr/bin/dbus-daemon", ["--session", "--address=\(address)", "--nofork", "--nopidfile"])
        case .everyone:
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
            process = try QuietProcess.start("/usr/bin/dbus-daemon", ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"])
        }
        var connected: DBusConnection?
        for _ in 0..<2_000 where connected == nil {
            connected = try? DBusConnection(address: DBusAddress(address))
            if connected == nil { usleep(5_000) }
        }
        guard let connected else {
            QuietProcess.end(process)
            throw DBusError.connectionFailed("the test's dbus-daemon did not answer")
        }
        connection = connected
        if audience == .everyone { _ = chmod(socket, 0o777) }
    }

    deinit {
        connection.close()
        stop()
    }

    /// Kills the bus (SIGKILL): every connection to it breaks.
    package func stop() {
        QuietProcess.end(process)
        process = nil
    }

    /// The unique name owning `name` on the bus, or nil when none does.
    package func owner(of name: String) -> String? {
        (try? connection.callSynchronously(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(name)], timeout: 5))?.first?.text
    }
}
