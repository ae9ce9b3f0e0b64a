import Foundation
import KeychainCore
import KeychainService
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Accepts clients on the listening socket and serves each on its own thread: refuse a peer of
/// another user than the socket's (`SO_PEERCRED`) before reading anything, then read a frame,
/// decide nothing twice (the caller was identified when it connected, and every byte read must
/// have been written by that process), carry the request out, write the answer (after a sync's
/// progress frames, `ServiceResponse.syncProgress`).
///
/// A client is independent of the others: one that sends a frame over the limit or a frame that
/// does not decode gets an error answer and is disconnected; one that stops reading blocks only
/// its own thread, until the send timeout closes it; one that disappears mid-request loses only
/// its answer (the engine's transaction commits or not, as in-process).
final class DaemonServer: Sendable {
    let listener: UnixListener
    let handler: RequestHandler

    /// Open connections, and when the last one closed.
    let activity = Mutex<(connections: Int, lastClosed: Date)>((0, Date()))
    /// The most connections served at once; more wait in the listen backlog.
    static let maximumConnections = 512
    /// How long a send to a client that does not read may block before it is disconnected.
    static let sendTimeout: Int = 30

    init(listener: UnixListener, handler: RequestHandler) {
        self.listener = listener
        self.handler = handler
    }

    /// Accepts clients until the process exits.
    func serve() -> Never {
        while true {
            guard let client = listener.accept() else { continue }
            let admitted = activity.withLock { state -> Bool in
                guard state.connections < Self.maximumConnections else { return false }
                state.connections += 1
                return true
            }
            guard admitted else { continue }  // closed by release
            let thread = Thread { [self] in
                serve(client)
                activity.withLock { state in
                    state.connections -= 1
                    if state.connections == 0 { state.lastClosed = Date() }
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The answer to bytes written by another process than the one that connected.
    static let foreignSender = KeychainError(.authFailed, "the request was written by another process than the one that connected; each process connects itself")

    /// Serves one client until it disconnects or misbehaves.
    private func serve(_ client: UnixSocket) {
        var timeout = timeval(tv_sec: Self.sendTimeout, tv_usec: 0)
        _ = setsockopt(client.descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The peer as the kernel saw it connect, held (by a pidfd) for the whole connection.
        let caller: PeerCredentials
        do {
            caller = try PeerCredentials(socket: client.descriptor)
        } catch {
            let failure = (error as? KeychainError) ?? KeychainError(.missingEntitlement, "the caller could not be identified")
            try? client.send(ServiceMessageCoding.frame(ServiceResponse.failure(failure)))
            return
        }
        // A socket serves one user: a peer of another user is refused before any request.
        guard caller.uid == handler.policy.expectedUID else {
            try? client.send(ServiceMessageCoding.frame(ServiceResponse.failure(KeychainError(.authFailed, "the caller belongs to another user"))))
            return
        }
        let callers = CallerCache()
        var buffer = Data()
        defer { buffer.resetBytes(in: buffer.startIndex..<buffer.endIndex) }
        while true {
            var payload: Data
            do {
                guard let next = try ServiceMessageCoding.nextPayload(from: &buffer) else {
                    guard let sender = try client.receiveWithSender(into: &buffer) else { return }
                    guard sender.pid == caller.pid && sender.uid == caller.uid else {
                        // Another process writes on the caller's connection (a child it forked, a
                        // process it passed the socket to): it would speak with the caller's
                        // access, so nothing it sent is carried out. (One given the caller's pid
                        // after the caller exited is refused by every request's liveness check.)
                        try? client.send(ServiceMessageCoding.frame(ServiceResponse.failure(Self.foreignSender)))
                        return
                    }
                    continue
                }
                payload = next
            } catch {
                // A frame over the limit, or a stream that is not frames: answer once and close.
                try? client.send(ServiceMessageCoding.frame(ServiceResponse.failure(KeychainError(.param, "the request frame is not valid"))))
                return
            }
            // The request may carry a secret or a passcode: zeroed once carried out.
            defer { payload.resetBytes(in: payload.startIndex..<payload.endIndex) }
            var response: ServiceResponse
            do {
                let request = try ServiceMessageCoding.request(fromPayload: payload)
                if case .authenticateBiometry = request.operation, let departure = PeerDeparture(watching: client.descriptor) {
                    // Waits for a finger: a client that leaves meanwhile withdraws it.
                    response = handler.handle(request, for: caller, cache: callers, withdrawal: departure.cancellation)
                    if departure.stop() { return }
                } else {
                    // A sync's progress goes to the client as it comes; a client that left
                    // meanwhile loses only the messages (the exchange goes on).
                    response = handler.handle(request, for: caller, cache: callers) { interim in
                        var frame = ServiceMessageCoding.frame(interim)
                        defer { frame.resetBytes(in: frame.startIndex..<frame.endIndex) }
                        try? client.send(frame)
                    }
                }
            } catch {
                response = .failure(KeychainError(.param, "the request could not be decoded"))
            }
            var frame = ServiceMessageCoding.frame(response)
            defer { frame.resetBytes(in: frame.startIndex..<frame.endIndex) }
            do {
                try client.send(frame)
            } catch {
                return
            }
        }
    }
}
