import KeychainDBus
import Testing

/// Bus addresses: the Unix entries this client connects to, in order; the system bus's default
/// and its environment override.
@Suite("D-Bus addresses")
struct DBusAddressTests {
    @Test("unix:path and unix:abstract entries are kept in order, other transports skipped, escapes decoded")
    func parsesEntries() throws {
        let address = try DBusAddress("tcp:host=localhost,port=1;unix:abstract=/tmp/dbus-x,guid=01;unix:path=/run/a%20b%2cc;unix:tmpdir=/tmp")
        #expect(address.endpoints == [.abstract("/tmp/dbus-x"), .path("/run/a b,c")])
    }

    @Test("an address without a usable entry, or with a broken escape, is refused")
    func refusesUnusable() {
        for text in ["", "tcp:host=a,port=1", "unix:tmpdir=/tmp", "unix:path=", "unix:path=/a%zz", "unix:path=/a%2"] {
            #expect(throws: DBusError.self, "\(text)") { try DBusAddress(text) }
        }
    }

    @Test("the system bus is DBUS_SYSTEM_BUS_ADDRESS when set, else /run/dbus/system_bus_socket")
    func systemBus() throws {
        #expect(try DBusAddress.systemBus(environment: [:]).endpoints == [.path("/run/dbus/system_bus_socket")])
        #expect(try DBusAddress.systemBus(environment: ["DBUS_SYSTEM_BUS_ADDRESS": ""]).endpoints == [.path("/run/dbus/system_bus_socket")])
        #expect(try DBusAddress.systemBus(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/x/bus"]).endpoints == [.path("/x/bus")])
    }
}
