import Dispatch
import Foundation
import KeychainDBus
import Synchronization
import Testing

/// The client against a real `dbus-daemon`: calls and their replies, error replies by name,
/// signals selected by match rules, and a bus that goes away.
@Suite("D-Bus connection")
struct DBusConnectionTests {
    static let bus = (destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus")

    @Test("Hello gives a unique name; GetId and ListNames answer, awaited and blocking")
    func methodCalls() async throws {
        let bus = try PrivateBus()
        let connection = try bus.connect()
        defer { connection.close() }
        #expect(connection.uniqueName.hasPrefix(":"))
        let id = try await connection.call(destination: Self.bus.destination, path: Self.bus.path, interface: Self.bus.interface, member: "GetId")
        #expect(id.count == 1 && id[0].text?.count == 32 && id[0].text!.allSatisfy(\.isHexDigit))
        let names = try connection.callSynchronously(
            destination: Self.bus.destination, path: Self.bus.path, interface: Self.bus.interface, member: "ListNames")
        let listed = names.first?.elements?.compactMap(\.text) ?? []
        #expect(listed.contains("org.freedesktop.DBus") && listed.contains(connection.uniqueName))
    }

    @Test("the client connects to an abstract-namespace address")
    func abstractAddress() throws {
        let bus = try PrivateBus(abstract: true)
        let connection = try bus.connect()
        defer { connection.close() }
        #expect(connection.uniqueName.hasPrefix(":"))
    }

    @Test("an error reply is thrown as DBusError.remote carrying the D-Bus error name")
    func errorReplies() async throws {
        let bus = try PrivateBus()
        let connection = try bus.connect()
        defer { connection.close() }
        await #expect(throws: DBusError.remote(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: "Could not get owner of name 'org.example.Nobody': no such name")) {
            _ = try await connection.call(
                destination: Self.bus.destination, path: Self.bus.path, interface: Self.bus.interface, member: "GetNameOwner",
                arguments: [.string("org.example.Nobody")])
        }
        #expect {
            _ = try connection.callSynchronously(
                destination: Self.bus.destination, path: Self.bus.path, interface: Self.bus.interface, member: "NoSuchMethod")
        } throws: { error in
            (error as? DBusError)?.name == "org.freedesktop.DBus.Error.UnknownMethod"
        }
    }

    @Test("after AddMatch the matching signal arrives with its values; a signal the rule does not match is not delivered")
    func signalsAfterAddMatch() throws {
        let bus = try PrivateBus()
        let connection = try bus.connect()
        defer { connection.close() }
        let received = Mutex<[DBusMessage]>([])
        let arrived = DispatchSemaphore(value: 0)
        connection.addSignalHandler { message in
            guard message.interface == "org.example.Test" else { return }
            received.withLock { $0.append(message) }
            arrived.signal()
        }
        try connection.addMatch(DBusMatchRule(interface: "org.example.Test", member: "Ping"))
        // GLib's gdbus emits them, in this order, from another connection.
        #expect(try bus.gdbus("emit", "--object-path", "/org/example", "--signal", "org.example.Test.Other", "'ignored'") == 0)
        #expect(try bus.gdbus("emit", "--object-path", "/org/example", "--signal", "org.example.Test.Ping", "'hello'", "42") == 0)
        #expect(arrived.wait(timeout: .now() + 30) == .success)
        let first = try #require(received.withLock { $0.first })
        #expect(first.member == "Ping")
        #expect(first.path == "/org/example")
        #expect(first.body == [.string("hello"), .int32(42)])
        #expect(first.sender?.hasPrefix(":") == true && first.sender != connection.uniqueName)
    }

    @Test("a bus that goes away fails the pending call with disconnected and runs the disconnect handlers")
    func lostBus() throws {
        let bus = try PrivateBus()
        let connection = try bus.connect()
        let closed = DispatchSemaphore(value: 0)
        connection.onDisconnect { closed.signal() }
        bus.stop()
        #expect(closed.wait(timeout: .now() + 30) == .success)
        #expect(connection.isClosed)
        #expect(throws: DBusError.disconnected) {
            _ = try connection.callSynchronously(
                destination: Self.bus.destination, path: Self.bus.path, interface: Self.bus.interface, member: "GetId")
        }
    }

    @Test("no bus at the address: connectionFailed, nothing else")
    func noBus() {
        #expect {
            _ = try DBusConnection(address: DBusAddress("unix:path=/nonexistent/keychain-test/bus"))
        } throws: { error in
            guard case .connectionFailed? = error as? DBusError else { return false }
            return true
        }
    }
}
