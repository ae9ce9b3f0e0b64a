import Dispatch
import Foundation
import KeychainDBus
import Synchronization

/// Verifies fingerprints through fprintd (`net.reactivated.Fprint`) on the system bus
/// (`DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`).
///
/// The reader is the manager's default device (`GetDefaultDevice`; `NoSuchDevice` means none),
/// named by its `name` property; the enrolled set is the user's `ListEnrolledFingers`
/// (`NoEnrolledPrints` or an empty list means none). A verification claims the device
/// (`Claim`), starts `VerifyStart("any")` and waits for a `VerifyStatus(result, done)` signal:
/// `verify-match` is `.matched`, `verify-no-match` `.noMatch`; `verify-retry-scan`,
/// `verify-swipe-too-short`, `verify-finger-not-centered` and `verify-remove-and-retry` let the
/// user try again within the same verification (restarting it when fprintd says it is done);
/// `verify-disconnected`, `verify-unknown-error`, any other result, an error reply
/// (`AlreadyInUse`, `PermissionDenied`, `NoEnrolledPrints`, …), fprintd leaving the bus or no
/// finger within `touchTimeout` seconds end it as `.unavailable`, whose reason starts with a
/// `FingerprintUnavailability`. It then stops (`VerifyStop`) and releases the device (`Release`)
/// and closes its connection; a cancellation does the same at once. Every call has a timeout,
/// so a bus or service that stops answering never hangs the caller.
///
/// Signals are believed only from fprintd itself: the sender must be the current owner of
/// `net.reactivated.Fprint` as the bus driver reports it (`GetNameOwner`, then
/// `NameOwnerChanged`), on the claimed device's path, since any peer on the bus can send this
/// connection a signal with fprintd's path and interface. fprintd itself decides who may use
/// the reader (polkit) and whose fingers are listed: the empty user name is the caller's own user.
/// fprintd shows nothing to the user, so a verification's `reason` is not passed on.
package struct FprintdVerifier: FingerprintReaderReporting {
    static let service = "net.reactivated.Fprint"
    static let managerPath = "/net/reactivated/Fprint/Manager"
    static let managerInterface = "net.reactivated.Fprint.Manager"
    static let deviceInterface = "net.reactivated.Fprint.Device"
    static let errorPrefix = "net.reactivated.Fprint.Error."
    static let busDriver = (name: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus")

    /// The results that let the user touch the reader again.
    static let retryResults: Set<String> = [
        "verify-retry-scan", "verify-swipe-too-short", "verify-finger-not-centered", "verify-remove-and-retry",
    ]

    /// The environment naming the system bus.
    let environment: [String: String]
    /// Whose fingers: empty for the user this process runs as.
    let username: String
    /// How long a verification waits for a finger, in seconds.
    let touchTimeout: Double
    /// How long one call to the bus or to fprintd may take, in seconds.
    let callTimeout: Double

    /// A verifier using the system bus `environment` names, for `username` (empty: the user this
    /// process runs as), waiting up to `touchTimeout` seconds for a finger.
    package init(
        environment: [String: String] = ProcessInfo.processInfo.environment, username: String = "",
        touchTimeout: Double = 30, callTimeout: Double = 5
    ) {
        self.environment = environment
        self.username = username
        self.touchTimeout = touchTimeout
        self.callTimeout = callTimeout
    }

    package func enrolledFingerprints() throws -> EnrolledFingerprints? {
        if case .enrolled(let set) = try readerState() { return set }
        return nil
    }

    package func readerState() throws -> FingerprintReaderState {
        let connection = try DBusConnection.systemBus(environment: environment)
        defer { connection.close() }
        let device: String
        do {
            device = try defaultDevice(connection)
        } catch DBusError.remote(let name, _) where name == Self.errorPrefix + "NoSuchDevice" {
            return .noReader
        } catch DBusError.remote(let name, _) where name == "org.freedesktop.DBus.Error.ServiceUnknown" {
            return .noReader  // fprintd is not installed
        }
        let reader = try readerName(connection, device: device)
        let fingers: [String]
        do {
            fingers = try call(connection, device, Self.deviceInterface, "ListEnrolledFingers", [.string(username)])
                .first?.elements?.compactMap(\.text) ?? []
        } catch DBusError.remote(let name, _) where name == Self.errorPrefix + "NoEnrolledPrints" {
            return .notEnrolled
        }
        return fingers.isEmpty ? .notEnrolled : .enrolled(EnrolledFingerprints(reader: reader, fingers: fingers))
    }

    package func verify(reason: String, cancellation: PromptCancellation) -> FingerprintVerdict {
        if cancellation.isCancelled { return .cancelled }
        let connection: DBusConnection
        do {
            connection = try DBusConnection.systemBus(environment: environment)
        } catch {
            return .unavailable(reason: FingerprintUnavailability.serviceUnreachable.reason("\(error)"))
        }
        defer { connection.close() }
        let session = VerificationSession()
        connection.onDisconnect { session.post(.serviceGone) }
        cancellation.onCancel { session.post(.cancelled) }
        defer { cancellation.removeCancelAction() }

        let device: String
        do {
            device = try defaultDevice(connection)
            try subscribe(connection, device: device, session: session)
        } catch {
            return .unavailable(reason: unavailability(of: error).reason("\(error)"))
        }
        do {
            _ = try call(connection, device, Self.deviceInterface, "Claim", [.string(username)])
        } catch {
            return .unavailable(reason: unavailability(of: error).reason("\(error)"))
        }
        defer { _ = try? call(connection, device, Self.deviceInterface, "Release") }
        return verifyClaimed(connection, device: device, session: session, cancellation: cancellation)
    }

    /// Runs verifications on the claimed `device` until one gives a verdict.
    private func verifyClaimed(
        _ connection: DBusConnection, device: String, session: VerificationSession, cancellation: PromptCancellation
    ) -> FingerprintVerdict {
        let deadline = DispatchTime.now() + touchTimeout
        while true {
            if cancellation.isCancelled { return .cancelled }
            do {
                _ = try call(connection, device, Self.deviceInterface, "VerifyStart", [.string("any")])
            } catch {
                return .unavailable(reason: unavailability(of: error).reason("\(error)"))
            }
            var restart = false
            while !restart {
                guard let event = session.next(until: deadline) else {
                    stop(connection, device)
                    return .unavailable(reason: FingerprintUnavailability.timedOut.reason("\(Int(touchTimeout)) seconds"))
                }
                switch event {
                case .cancelled:
                    stop(connection, device)
                    return .cancelled
                case .serviceGone:
                    return .unavailable(reason: FingerprintUnavailability.serviceUnreachable.reason("fprintd left the bus"))
                case .status("verify-match", _):
                    stop(connection, device)
                    return .matched
                case .status("verify-no-match", _):
                    stop(connection, device)
                    return .noMatch
                case .status(let result, let done) where Self.retryResults.contains(result):
                    if done {
                        stop(connection, device)
                        restart = true
                    }
                case .status("verify-disconnected", _):
                    return .unavailable(reason: FingerprintUnavailability.disconnected.reason())
                case .status(let result, _):
                    stop(connection, device)
                    return .unavailable(reason: FingerprintUnavailability.failed.reason(result))
                }
            }
        }
    }

    /// Asks the bus for fprintd's `VerifyStatus` signals and its owner changes, and learns its
    /// current owner; the signal handler passes on only the owner's statuses from `device`.
    private func subscribe(_ connection: DBusConnection, device: String, session: VerificationSession) throws {
        connection.addSignalHandler { message in
            if message.sender == Self.busDriver.name, message.interface == Self.busDriver.interface,
                message.member == "NameOwnerChanged", message.body.count == 3, message.body[0].text == Self.service
            {
                session.ownerChanged()
                return
            }
            guard let sender = message.sender, session.isOwner(sender), message.path == device,
                message.interface == Self.deviceInterface, message.member == "VerifyStatus", message.body.count == 2,
                let result = message.body[0].text, let done = message.body[1].bool
            else { return }
            session.post(.status(result, done))
        }
        try connection.addMatch(
            DBusMatchRule(
                sender: Self.busDriver.name, interface: Self.busDriver.interface, member: "NameOwnerChanged",
                arguments: [0: Self.service]), timeout: callTimeout)
        try connection.addMatch(
            DBusMatchRule(sender: Self.service, interface: Self.deviceInterface, member: "VerifyStatus", path: device),
            timeout: callTimeout)
        let owner = try connection.callSynchronously(
            destination: Self.busDriver.name, path: Self.busDriver.path, interface: Self.busDriver.interface,
            member: "GetNameOwner", arguments: [.string(Self.service)], timeout: callTimeout
        ).first?.text
        guard let owner else { throw DBusError.invalidMessage("GetNameOwner answered no name") }
        session.setOwner(owner)
    }

    /// The default device's object path.
    private func defaultDevice(_ connection: DBusConnection) throws -> String {
        guard let path = try call(connection, Self.managerPath, Self.managerInterface, "GetDefaultDevice").first?.text else {
            throw DBusError.invalidMessage("GetDefaultDevice answered no object path")
        }
        return path
    }

    /// The device's `name` property.
    private func readerName(_ connection: DBusConnection, device: String) throws -> String {
        let reply = try call(
            connection, device, "org.freedesktop.DBus.Properties", "Get", [.string(Self.deviceInterface), .string("name")])
        guard let name = reply.first?.variantValue?.text else { throw DBusError.invalidMessage("the reader has no name") }
        return name
    }

    /// Ends the running verification (its errors, such as `NoActionInProgress`, change nothing).
    private func stop(_ connection: DBusConnection, _ device: String) {
        _ = try? call(connection, device, Self.deviceInterface, "VerifyStop")
    }

    /// Calls fprintd.
    private func call(
        _ connection: DBusConnection, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []
    ) throws -> [DBusValue] {
        try connection.callSynchronously(
            destination: Self.service, path: path, interface: interface, member: member, arguments: arguments,
            timeout: callTimeout)
    }

    /// The kind of failure `error` (from the bus or fprintd) is.
    private func unavailability(of error: any Error) -> FingerprintUnavailability {
        guard case DBusError.remote(let name, _)? = error as? DBusError else { return .serviceUnreachable }
        switch name {
        case Self.errorPrefix + "NoSuchDevice", "org.freedesktop.DBus.Error.ServiceUnknown": return .noReader
        case Self.errorPrefix + "NoEnrolledPrints": return .notEnrolled
        case Self.errorPrefix + "AlreadyInUse": return .busy
        case Self.errorPrefix + "PermissionDenied", "org.freedesktop.DBus.Error.AccessDenied": return .denied
        case "org.freedesktop.DBus.Error.NameHasNoOwner": return .serviceUnreachable
        default: return .failed
        }
    }
}

/// What one verification waits for: statuses from fprintd, a cancel, fprintd leaving.
final class VerificationSession: Sendable {
    enum Event: Sendable {
        case status(String, Bool)
        case cancelled
        case serviceGone
    }

    private struct State {
        var owner: String?
        var events: [Event] = []
    }

    private let state = Mutex(State())
    private let arrived = DispatchSemaphore(value: 0)

    /// Records fprintd's unique name.
    func setOwner(_ owner: String) {
        state.withLock { $0.owner = owner }
    }

    /// Whether `sender` is fprintd.
    func isOwner(_ sender: String) -> Bool {
        state.withLock { $0.owner == sender }
    }

    /// fprintd's name changed hands: the claim and the verification are gone with the old owner.
    func ownerChanged() {
        let known = state.withLock { state -> Bool in
            defer { state.owner = nil }
            return state.owner != nil
        }
        if known { post(.serviceGone) }
    }

    /// Queues `event` for `next`.
    func post(_ event: Event) {
        state.withLock { $0.events.append(event) }
        arrived.signal()
    }

    /// The next event, waiting until `deadline`; nil when none came.
    func next(until deadline: DispatchTime) -> Event? {
        guard arrived.wait(timeout: deadline) == .success else { return nil }
        return state.withLock { $0.events.removeFirst() }
    }
}
