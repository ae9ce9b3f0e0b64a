import Dispatch
import Foundation
import KeychainDBus
import Synchronization

/// Locks every keychain the daemon holds when systemd-logind, on the system bus, says the machine
/// is about to sleep (`org.freedesktop.login1.Manager.PrepareForSleep` with `true`) or that a
/// login session of the daemon's user locks (`org.freedesktop.login1.Session.Lock`).
///
/// A `Lock` names only the session's object path, so each one is checked by reading that
/// session's `User` property (its uid) before anything is locked: a session of another user
/// locks nothing here. Signals are believed only from logind itself: the sender must be the
/// current owner of `org.freedesktop.login1`, as the bus driver reports it (`GetNameOwner` when
/// subscribing, then `NameOwnerChanged`), since any peer can send this connection a signal with
/// logind's path and interface.
///
/// Without a system bus the daemon locks on the idle timeout and on request only, and says so in
/// one line; the watcher tries the bus again, less and less often (up to once a minute), so a bus
/// that starts later or restarts is picked up. Everything runs on the watcher's own thread and the
/// connection's reading thread, with timeouts on every call: a bus that stalls or disappears never
/// holds up a client of the daemon.
final class LoginSessionWatcher: Sendable {
    static let logind = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"
    static let sessionInterface = "org.freedesktop.login1.Session"
    /// How long a call to the bus or to logind may take.
    static let callTimeout: Double = 5
    /// The most sessions waiting for their owner to be checked (repeated locks of one session
    /// count once).
    static let maximumPendingSessions = 256

    /// The user whose sessions lock the keychains.
    let uid: UInt32
    /// The environment naming the system bus (`DBUS_SYSTEM_BUS_ADDRESS`).
    let environment: [String: String]
    /// Locks every held keychain.
    let lockKeychains: @Sendable () -> Void
    /// Writes one line to the daemon's log.
    let log: @Sendable (String) -> Void

    private struct State {
        /// The unique name of logind on the current connection (nil while it is not running).
        var owner: String?
        /// Counts owner changes, so an older `GetNameOwner` answer does not undo a newer change.
        var ownerChanges = 0
        /// Sessions that sent `Lock`, oldest first, waiting for their uid to be checked.
        var lockedSessions: [String] = []
    }

    private let state = Mutex<State>(State())
    /// Signalled when a session locked or the connection closed.
    private let wake = DispatchSemaphore(value: 0)

    init(uid: UInt32, environment: [String: String], lockKeychains: @escaping @Sendable () -> Void,
         log: @escaping @Sendable (String) -> Void) {
        self.uid = uid
        self.environment = environment
        self.lockKeychains = lockKeychains
        self.log = log
    }

    /// Starts watching on a thread of its own.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "logind-watcher"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func run() {
        var told = false
        var delay: UInt32 = 1
        while true {
            do {
                let connection = try DBusConnection.systemBus(environment: environment)
                let logindRunning = try subscribe(connection)
                if !told {
                    log(logindRunning
                        ? "locking the keychains when a login session of uid \(uid) locks or the machine suspends (logind)"
                        : "logind is not running: the keychains lock on their idle timeout and on request")
                    told = true
                }
                delay = 1
                serve(connection)
            } catch {
                if !told {
                    log("no system D-Bus: the keychains lock on their idle timeout and on request")
                    told = true
                }
            }
            sleep(delay)
            delay = min(delay * 2, 60)
        }
    }

    /// Adds the match rules and learns logind's current owner; returns whether logind runs.
    private func subscribe(_ connection: DBusConnection) throws -> Bool {
        state.withLock { $0 = State() }
        connection.onDisconnect { [wake] in wake.signal() }
        connection.addSignalHandler { [self] message in received(message) }
        do {
            try connection.addMatch(
                DBusMatchRule(
                    sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                    arguments: [0: Self.logind]), timeout: Self.callTimeout)
            try connection.addMatch(
                DBusMatchRule(sender: Self.logind, interface: Self.managerInterface, member: "PrepareForSleep", path: Self.managerPath),
                timeout: Self.callTimeout)
            try connection.addMatch(
                DBusMatchRule(sender: Self.logind, interface: Self.sessionInterface, member: "Lock"), timeout: Self.callTimeout)
            let changesBefore = state.withLock { $0.ownerChanges }
            let owner: String?
            do {
                owner = try connection.callSynchronously(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetNameOwner", arguments: [.string(Self.logind)], timeout: Self.callTimeout
                ).first?.text
            } catch DBusError.remote(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: _) {
                owner = nil
            }
            state.withLock { state in
                if state.ownerChanges == changesBefore { state.owner = owner }
            }
            return owner != nil
        } catch {
            connection.close()
            throw error
        }
    }

    /// Runs on the connection's reading thread: never calls the bus.
    private func received(_ message: DBusMessage) {
        if message.sender == "org.freedesktop.DBus", message.interface == "org.freedesktop.DBus",
            message.member == "NameOwnerChanged", message.body.count == 3, message.body[0].text == Self.logind
        {
            let newOwner = message.body[2].text ?? ""
            state.withLock { state in
                state.owner = newOwner.isEmpty ? nil : newOwner
                state.ownerChanges += 1
            }
            return
        }
        guard let sender = message.sender, state.withLock({ $0.owner == sender }) else { return }
        switch (message.interface, message.member) {
        case (Self.managerInterface, "PrepareForSleep"):
            if message.path == Self.managerPath, message.body == [.boolean(true)] { lockKeychains() }
        case (Self.sessionInterface, "Lock"):
            guard let path = message.path else { return }
            let added = state.withLock { state -> Bool in
                guard !state.lockedSessions.contains(path), state.lockedSessions.count < Self.maximumPendingSessions else {
                    return false
                }
                state.lockedSessions.append(path)
                return true
            }
            if added { wake.signal() }
        default:
            break
        }
    }

    /// Checks each locked session's owner, in the order the locks came, until the connection closes.
    private func serve(_ connection: DBusConnection) {
        while !connection.isClosed {
            wake.wait()
            while let session = state.withLock({ $0.lockedSessions.isEmpty ? nil : $0.lockedSessions.removeFirst() }) {
                if sessionBelongsToUser(session, connection: connection) { lockKeychains() }
            }
        }
    }

    /// Whether the session at `path` is one of `uid`'s: its `User` property is `(uid, user path)`.
    private func sessionBelongsToUser(_ path: String, connection: DBusConnection) -> Bool {
        guard let reply = try? connection.callSynchronously(
            destination: Self.logind, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(Self.sessionInterface), .string("User")], timeout: Self.callTimeout),
            case .variant(.structure(let fields))? = reply.first, fields.first?.uint32 == uid
        else { return false }
        return true
    }
}
