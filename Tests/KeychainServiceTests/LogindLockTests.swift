import Foundation
import Testing

/// keychaind and systemd-logind: the keychains lock for every client when the machine prepares
/// to sleep or a login session of the daemon's user locks, and only then. Real peers: a private
/// `dbus-daemon` as the system bus, python-dbusmock's `logind` template as logind, the daemon
/// and its clients as built.
@Suite("keychaind and logind", .serialized)
struct LogindLockTests {
    static let interactionNotAllowed = "-25308"
    static let unlocked = "0 s3cret"

    /// A daemon on `logind`'s bus, subscribed, holding an unlocked keychain with one item.
    static func unlockedDaemon(on logind: LogindBus) throws -> DaemonFixture {
        let fixture = try DaemonFixture(environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address])
        #expect(fixture.waitForDaemonLog(containing: "locking the keychains when a login session"))
        #expect(try fixture.security("set-keychain-password", "-o", "", "-p", "pw").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "add", "mail", "me", "s3cret") == "0")
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == unlocked)
        return fixture
    }

    @Test("PrepareForSleep(true) locks the keychain for every client; PrepareForSleep(false) unlocks nothing")
    func sleepLocks() throws {
        let logind = try LogindBus()
        let fixture = try Self.unlockedDaemon(on: logind)
        try logind.prepareForSleep(true)
        #expect(fixture.waitUntilLocked())
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.interactionNotAllowed)
        try logind.prepareForSleep(false)
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.interactionNotAllowed)
        #expect(try fixture.security("unlock-keychain", "-p", "pw").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.unlocked)
    }

    @Test("a Lock of a session of another uid locks nothing; a Lock of a session of the daemon's uid locks every client")
    func sessionLockOfTheUser() throws {
        let logind = try LogindBus()
        let own = try logind.addSession("c1", uid: getuid())
        let other = try logind.addSession("c2", uid: getuid() + 1000)
        let another = try logind.addSession("c3", uid: getuid() + 1001)
        let fixture = try Self.unlockedDaemon(on: logind)
        try logind.lock(session: other)
        try logind.lock(session: another)
        // The daemon checks each locked session's owner in turn: once it asks for c3's, it has
        // finished with c2.
        #expect(logind.waitForMockLog(containing: "Get \(another) org.freedesktop.login1.Session.User"))
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.unlocked)
        try logind.lock(session: own)
        #expect(fixture.waitUntilLocked())
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.interactionNotAllowed)
    }

    @Test("logind's signals sent by another peer straight to the daemon lock nothing")
    func spoofedSignalsIgnored() throws {
        let logind = try LogindBus()
        let own = try logind.addSession("c1", uid: getuid())
        let other = try logind.addSession("c2", uid: getuid() + 1000)
        let fixture = try Self.unlockedDaemon(on: logind)
        let daemonPID = try #require(fixture.daemon?.processIdentifier)
        let daemon = try #require(try logind.uniqueName(ofProcess: daemonPID))
        try logind.spoof(to: daemon, path: LogindBus.manager, interface: "org.freedesktop.login1.Manager", member: "PrepareForSleep", [.boolean(true)])
        try logind.spoof(to: daemon, path: own, interface: "org.freedesktop.login1.Session", member: "Lock", [])
        // Then a real Lock from logind: the bus passes the spoofed signals to the daemon first,
        // and once the daemon asks who owns c2 it has handled them.
        try logind.lock(session: other)
        #expect(logind.waitForMockLog(containing: "Get \(other) org.freedesktop.login1.Session.User"))
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.unlocked)
    }

    @Test("a lost bus leaves the daemon serving, locking on request")
    func lostBus() throws {
        let logind = try LogindBus()
        let fixture = try Self.unlockedDaemon(on: logind)
        logind.stopBus()
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.unlocked)
        #expect(try fixture.security("lock-keychain").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.interactionNotAllowed)
        #expect(fixture.daemon?.isRunning == true)
    }

    @Test("without a system bus the daemon serves normally and says so in one line")
    func withoutBus() throws {
        let fixture = try DaemonFixture(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/keychain-test/system_bus_socket"])
        #expect(fixture.waitForDaemonLog(containing: "no system D-Bus"))
        #expect(try fixture.security("set-keychain-password", "-o", "", "-p", "pw").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "add", "mail", "me", "s3cret") == "0")
        #expect(try fixture.security("lock-keychain").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.interactionNotAllowed)
        let log = try String(contentsOfFile: fixture.daemonLog, encoding: .utf8)
        #expect(log.components(separatedBy: "\n").filter { $0.contains("D-Bus") || $0.contains("logind") }.count == 1)
    }
}

extension DaemonFixture {
    /// Waits until the daemon's standard error has a line containing `text`; false if it never
    /// comes.
    func waitForDaemonLog(containing text: String) -> Bool {
        for _ in 0..<3_000 {
            if let log = try? String(contentsOfFile: daemonLog, encoding: .utf8), log.contains(text) { return true }
            usleep(10_000)
        }
        return false
    }

    /// Waits until `security show-keychain-info` reports the keychain locked (a signal is
    /// handled as it arrives, with no answer to wait for); false if it never does.
    func waitUntilLocked() -> Bool {
        for _ in 0..<600 {
            if let info = try? security("show-keychain-info"), info.output.hasSuffix(": locked\n") { return true }
            usleep(50_000)
        }
        return false
    }
}
