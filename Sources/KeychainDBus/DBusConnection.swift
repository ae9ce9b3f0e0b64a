import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A client connection to a message bus: authenticated, registered with `Hello`, and read by a
/// thread of its own that hands each reply to the call waiting for it and each signal to the
/// signal handlers.
///
/// Calls can be awaited (`call`) or made blocking (`callSynchronously`, never from a signal
/// handler: handlers run on the reading thread, which the reply would have to come through).
/// Every call has a timeout, and sends block at most `sendTimeout` seconds, so a bus that stops
/// answering or reading stalls no caller for ever. A message that breaks the protocol, a failed
/// send or the bus closing the socket closes the connection: pending calls fail with
/// `DBusError.disconnected` and the disconnect handlers run once. The connection lives until it
/// is closed (`close()`, or by the bus): its reading thread holds it.
///
/// Method calls the bus routes to this connection are answered with
/// `org.freedesktop.DBus.Error.UnknownMethod` (`org.freedesktop.DBus.Peer.Ping` with an empty
/// reply), since it exports no object.
package final class DBusConnection: Sendable {
    /// A reply's recipient: the call that waits for it.
    package typealias ReplyHandler = @Sendable (Result<DBusMessage, DBusError>) -> Void
    /// Receives a signal, on the connection's reading thread.
    package typealias SignalHandler = @Sendable (DBusMessage) -> Void

    /// How long a send may block before the connection is given up.
    package static let sendTimeout = 10
    /// How long a call waits for its reply unless told otherwise (libdbus's default).
    package static let defaultCallTimeout: Double = 25

    /// The name the bus gave this connection (`:1.42`).
    package let uniqueName: String

    private let socket: DBusSocket
    /// The last serial used; sends happen under this lock, so messages never interleave.
    private let sending = Mutex<UInt32>(0)
    private let state = Mutex<State>(State())

    private struct State {
        var pending: [UInt32: ReplyHandler] = [:]
        var signalHandlers: [Int: SignalHandler] = [:]
        var nextHandlerID = 0
        var disconnectHandlers: [@Sendable () -> Void] = []
        var isClosed = false
    }

    /// Connects to the system bus: `DBUS_SYSTEM_BUS_ADDRESS` in `environment`, or
    /// `unix:path=/run/dbus/system_bus_socket`.
    package static func systemBus(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DBusConnection {
        try DBusConnection(address: try DBusAddress.systemBus(environment: environment))
    }

    /// Connects to the first entry of `address` that accepts a connection, authenticates
    /// (`AUTH EXTERNAL`) and registers (`Hello`).
    ///
    /// - Throws: `DBusError.connectionFailed` when no entry connects, `authenticationFailed`
    ///   when the bus refuses, `timedOut` when the bus does not answer within `timeout` seconds.
    package init(address: DBusAddress, timeout: Int = 10) throws {
        var failure = DBusError.connectionFailed("the address has no usable entry")
        var connected: DBusSocket?
        for endpoint in address.endpoints {
            do {
                connected = try DBusSocket.connect(to: endpoint)
                break
            } catch let error as DBusError {
                failure = error
            }
        }
        guard let socket = connected else { throw failure }
        socket.setTimeouts(receive: timeout, send: timeout)
        var buffer = try DBusAuthentication.authenticate(socket)
        // Hello, answered before anything else this connection is sent (its reply comes first,
        // then the NameAcquired signal, which is dropped here).
        var hello = DBusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "Hello")
        hello.serial = 1
        try socket.send(try hello.encoded())
        var name: String?
        while name == nil {
            while let message = try Self.nextMessage(from: &buffer) {
                guard message.replySerial == 1 else { continue }
                guard message.kind == .methodReturn, case .string(let unique)? = message.body.first else {
                    throw DBusError.connectionFailed("the bus refused Hello")
                }
                name = unique
                break
            }
            if name == nil, try !socket.receive(into: &buffer) { throw DBusError.disconnected }
        }
        uniqueName = name!
        self.socket = socket
        sending.withLock { $0 = 1 }
        socket.setTimeouts(receive: 0, send: Self.sendTimeout)
        let received = buffer
        let thread = Thread { [self] in readMessages(received) }
        thread.name = "dbus-reader"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Whether the connection is closed.
    package var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Closes the connection: pending calls fail with `DBusError.disconnected` and the
    /// disconnect handlers run. Closing twice does nothing.
    package func close() {
        socket.shutdown()
        finish()
    }

    /// Sends `message` (its serial is assigned here); `reply`, if given, receives the reply.
    ///
    /// - Returns: the serial.
    /// - Throws: `DBusError.disconnected` on a closed connection, `invalidMessage` for a message
    ///   that breaks a rule; a send that fails closes the connection.
    @discardableResult
    package func send(_ message: DBusMessage, reply: ReplyHandler? = nil) throws -> UInt32 {
        var message = message
        var sendFailed = false
        // A failed send closes the connection after the lock is released (a disconnect handler
        // may send).
        defer { if sendFailed { close() } }
        return try sending.withLock { serial throws(DBusError) -> UInt32 in
            serial = serial == UInt32.max ? 1 : serial + 1
            message.serial = serial
            let bytes: [UInt8]
            do {
                bytes = try message.encoded()
            } catch {
                throw error as? DBusError ?? .invalidMessage("\(error)")
            }
            let assigned = serial
            let registered = state.withLock { state -> Bool in
                guard !state.isClosed else { return false }
                if let reply { state.pending[assigned] = reply }
                return true
            }
            guard registered else { throw .disconnected }
            do {
                try socket.send(bytes)
            } catch {
                _ = state.withLock { $0.pending.removeValue(forKey: assigned) }
                sendFailed = true
                throw .disconnected
            }
            return assigned
        }
    }

    /// Calls a method and awaits its reply's values.
    ///
    /// - Throws: `DBusError.remote` carrying the error name of an error reply; `timedOut`,
    ///   `disconnected`, `invalidMessage` as `send` does.
    package func call(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = [],
        timeout: Double = defaultCallTimeout
    ) async throws -> [DBusValue] {
        let message = DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[DBusValue], any Error>) in
            do {
                let serial = try send(message) { result in
                    continuation.resume(with: result.map(\.body).mapError { $0 as any Error })
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                    if state.withLock({ $0.pending.removeValue(forKey: serial) }) != nil {
                        continuation.resume(throwing: DBusError.timedOut)
                    }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Calls a method and waits (blocking the thread) for its reply's values. Never call it
    /// from a signal handler: the reply would wait behind the handler.
    ///
    /// - Throws: as `call`.
    package func callSynchronously(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = [],
        timeout: Double = defaultCallTimeout
    ) throws -> [DBusValue] {
        let message = DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        let outcome = Mutex<Result<DBusMessage, DBusError>?>(nil)
        let arrived = DispatchSemaphore(value: 0)
        let serial = try send(message) { result in
            outcome.withLock { $0 = result }
            arrived.signal()
        }
        if arrived.wait(timeout: .now() + timeout) == .timedOut {
            if state.withLock({ $0.pending.removeValue(forKey: serial) }) != nil { throw DBusError.timedOut }
            arrived.wait()  // the reply came as the time ran out
        }
        return try outcome.withLock { $0! }.get().body
    }

    /// Asks the bus to send this connection the messages `rule` matches (`AddMatch`), waiting for
    /// the bus to accept it.
    ///
    /// - Throws: `DBusError.remote` (`org.freedesktop.DBus.Error.MatchRuleInvalid`, …) as `call`.
    package func addMatch(_ rule: DBusMatchRule, timeout: Double = defaultCallTimeout) throws {
        _ = try callSynchronously(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "AddMatch", arguments: [.string(rule.description)], timeout: timeout)
    }

    /// Adds a handler for every signal this connection receives (the ones its match rules select
    /// and the ones sent to it directly; check `sender` before trusting one). Handlers run on
    /// the reading thread, one signal at a time, in arrival order.
    ///
    /// - Returns: an identifier for `removeSignalHandler`.
    @discardableResult
    package func addSignalHandler(_ handler: @escaping SignalHandler) -> Int {
        state.withLock { state in
            state.nextHandlerID += 1
            state.signalHandlers[state.nextHandlerID] = handler
            return state.nextHandlerID
        }
    }

    /// Removes a signal handler.
    package func removeSignalHandler(_ id: Int) {
        _ = state.withLock { $0.signalHandlers.removeValue(forKey: id) }
    }

    /// Runs `handler` once when the connection closes (at once if it is closed already).
    package func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        let closed = state.withLock { state -> Bool in
            if !state.isClosed { state.disconnectHandlers.append(handler) }
            return state.isClosed
        }
        if closed { handler() }
    }

    /// The reading thread: decodes messages until the stream ends or breaks.
    private func readMessages(_ initial: [UInt8]) {
        var buffer = initial
        do {
            while true {
                while let message = try Self.nextMessage(from: &buffer) { dispatch(message) }
                guard try socket.receive(into: &buffer) else { break }
            }
        } catch {
            // A broken stream, or the socket failed: nothing more can be trusted.
        }
        socket.shutdown()
        finish()
    }

    /// The next whole message at the start of `buffer`, removed from it; nil until one is whole.
    private static func nextMessage(from buffer: inout [UInt8]) throws -> DBusMessage? {
        guard let length = try DBusMessage.length(ofMessageStartingWith: buffer[...]), buffer.count >= length else {
            return nil
        }
        let message = try DBusMessage(decoding: Array(buffer[..<length]))
        buffer.removeFirst(length)
        return message
    }

    private func dispatch(_ message: DBusMessage) {
        switch message.kind {
        case .methodReturn, .error:
            guard let serial = message.replySerial, let handler = state.withLock({ $0.pending.removeValue(forKey: serial) }) else {
                return
            }
            if message.kind == .error {
                handler(.failure(.remote(name: message.errorName ?? "", message: message.body.first?.text ?? "")))
            } else {
                handler(.success(message))
            }
        case .signal:
            let handlers = state.withLock { state in state.signalHandlers.sorted { $0.key < $1.key }.map(\.value) }
            for handler in handlers { handler(message) }
        case .methodCall:
            guard !message.flags.contains(.noReplyExpected), let caller = message.sender else { return }
            var answer: DBusMessage
            if message.interface == "org.freedesktop.DBus.Peer", message.member == "Ping" {
                answer = DBusMessage(kind: .methodReturn)
            } else {
                answer = DBusMessage(kind: .error)
                answer.errorName = "org.freedesktop.DBus.Error.UnknownMethod"
                answer.body = [.string("no object is exported on this connection")]
            }
            answer.replySerial = message.serial
            answer.destination = caller
            _ = try? send(answer)
        }
    }

    /// Marks the connection closed, fails the pending calls and runs the disconnect handlers.
    private func finish() {
        let (pending, handlers) = state.withLock { state -> ([ReplyHandler], [@Sendable () -> Void]) in
            guard !state.isClosed else { return ([], []) }
            state.isClosed = true
            defer {
                state.pending = [:]
                state.disconnectHandlers = []
                state.signalHandlers = [:]
            }
            return (Array(state.pending.values), state.disconnectHandlers)
        }
        for handler in pending { handler(.failure(.disconnected)) }
        for handler in handlers { handler() }
    }
}
