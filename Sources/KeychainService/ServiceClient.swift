import Foundation
import KeychainCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A client of one `keychaind` socket: sends typed requests and returns typed responses.
///
/// Connections are kept open between calls (one per concurrent call, reused), so a call costs one
/// round trip. A connection found closed before the request was written (the daemon exited while
/// idle, or restarted) is replaced once, starting the daemon again if needed; a daemon that fails
/// after it took a request reports `.notAvailable` and the request is not repeated, since it may
/// have been carried out.
public final class ServiceClient: Sendable {
    /// The socket's path.
    public let socketPath: String
    private let startsDaemon: Bool
    /// Connections kept for the next call, and the process they belong to: the daemon serves a
    /// connection only to the process that made it, so a child after `fork` makes its own.
    private let idleConnections = Mutex<(owner: Int32, sockets: [UnixSocket])>((getpid(), []))

    init(socketPath: String, startsDaemon: Bool) {
        self.socketPath = socketPath
        self.startsDaemon = startsDaemon
    }

    /// The client of the daemon this process uses (`ServiceLocation.namedSocket`, else the
    /// user's socket), connected once to check that a daemon answers.
    ///
    /// - Parameter startingIfNeeded: start `keychaind` when none listens (see `DaemonLauncher`).
    /// - Throws: `.notAvailable` when no daemon answers and none can be started.
    public static func shared(startingIfNeeded: Bool) throws -> ServiceClient {
        try shared(socket: ServiceLocation.namedSocket ?? ServiceLocation.userSocket, startingIfNeeded: startingIfNeeded)
    }

    /// The client of the system daemon (`keychaind --system`): `ServiceLocation.namedSocket`, else the
    /// user's socket in `/run/swift-keychain/<uid>/`. It never starts a daemon.
    ///
    /// - Throws: `.notAvailable` when the system daemon does not answer.
    public static func system() throws -> ServiceClient {
        try shared(socket: ServiceLocation.namedSocket ?? ServiceLocation.systemSocket(for: getuid()), startingIfNeeded: false)
    }

    private static func shared(socket path: String, startingIfNeeded: Bool) throws -> ServiceClient {
        if let client = clients.withLock({ $0[path] }) { return client }
        let client = ServiceClient(socketPath: path, startsDaemon: startingIfNeeded)
        client.checkIn(try client.connect())
        return clients.withLock { clients in
            if let existing = clients[path] { return existing }
            clients[path] = client
            return client
        }
    }

    private static let clients = Mutex<[String: ServiceClient]>([:])

    /// A handle on the keychain at `path`. The first time this process asks for it, the daemon
    /// opens it as a process opening it itself would (checking its files); later calls reuse
    /// that answer without a round trip.
    public func open(path: String, create: Bool) throws -> RemoteKeychain {
        let keychain = RemoteKeychain(client: self, path: path)
        if opened.withLock({ $0.contains(path) }) { return keychain }
        try keychain.expectDone(.open(create: create))
        opened.withLock { _ = $0.insert(path) }
        return keychain
    }

    /// The keychains this process opened through the daemon.
    private let opened = Mutex<Set<String>>([])

    /// Creates a keychain with a passcode and returns a handle on it.
    public func create(path: String, passcode: Data?) throws -> RemoteKeychain {
        let keychain = RemoteKeychain(client: self, path: path)
        try keychain.expectDone(.create(passcode: passcode))
        opened.withLock { _ = $0.insert(path) }
        return keychain
    }

    /// Deletes the keychain at `path` (the daemon forgets its keys first).
    public func deleteKeychain(path: String) throws {
        opened.withLock { _ = $0.remove(path) }
        try RemoteKeychain(client: self, path: path).expectDone(.deleteKeychain)
    }

    /// Ends the daemon serving this client's socket (SIGTERM) and waits until its socket refuses
    /// connections: a test's stand-in for a restart of the machine. Idle connections are closed.
    public func stopDaemon() {
        let request = ServiceRequest(keychainPath: KeychainLocation.defaultKeychainPath, operation: .status)
        guard case .status(let status)? = try? send(request),
            let pid = status.daemonProcess
        else { return }
        idleConnections.withLock { $0.sockets.removeAll() }
        kill(pid, SIGTERM)
        for _ in 0..<1_000 {
            guard (try? UnixSocket.connect(to: socketPath)) != nil else { return }
            usleep(2_000)
        }
    }

    /// Sends `request` and waits for the answer; a `.failure` answer is thrown as the engine's
    /// error, exactly as an in-process call would throw it.
    public func send(_ request: ServiceRequest) throws -> ServiceResponse {
        try send(request) { _ in }
    }

    /// Sends `request` and waits for its final answer, giving each interim answer that comes
    /// before it (`ServiceResponse.isInterim`: a sync's progress) to `interim` as it arrives; a
    /// `.failure` answer is thrown as the engine's error.
    public func send(_ request: ServiceRequest, interim: (ServiceResponse) -> Void) throws -> ServiceResponse {
        var frame = try ServiceMessageCoding.frame(request)
        defer { frame.resetBytes(in: frame.startIndex..<frame.endIndex) }
        var connection = try takeConnection()
        do {
            try connection.send(frame)
        } catch let error as SocketError where error.errno == EPIPE || error.errno == ECONNRESET {
            connection = try connect()
            try rethrowingUnavailable { try connection.send(frame) }
        } catch {
            throw unavailable(error)
        }
        let answer = try readResponse(on: connection, interim: interim)
        checkIn(connection)
        if case .failure(let error) = answer { throw error }
        return answer
    }

    /// Sends `request`, one that waits for the user (a fingerprint verification), on a connection
    /// of its own, and waits for the answer unless `cancellation` withdraws it first: the
    /// connection is then shut down, which tells keychaind to stop the verification, and the call
    /// throws `errSecUserCanceled`. A grant issued as the cancel came is revoked.
    public func send(_ request: ServiceRequest, withdrawnBy cancellation: any BiometricCancellation) throws -> ServiceResponse {
        var frame = try ServiceMessageCoding.frame(request)
        defer { frame.resetBytes(in: frame.startIndex..<frame.endIndex) }
        let connection = try connect()
        let descriptor = connection.descriptor
        cancellation.onCancel { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        defer { cancellation.removeCancelAction() }
        let answer = Result {
            try rethrowingUnavailable { try connection.send(frame) }
            return try readResponse(on: connection)
        }
        guard !cancellation.isCancelled else {
            if case .success(.grant(let issued)) = answer {
                _ = try? send(ServiceRequest(keychainPath: request.keychainPath, operation: .revokeAuthentication(grant: issued)))
            }
            throw BiometricOutcome.cancelledError
        }
        let response = try answer.get()
        if case .failure(let error) = response { throw error }
        return response
    }

    /// Reads the final response from `connection`, giving the interim ones before it to `interim`.
    private func readResponse(on connection: UnixSocket, interim: (ServiceResponse) -> Void = { _ in }) throws -> ServiceResponse {
        var buffer = Data()
        defer { buffer.resetBytes(in: buffer.startIndex..<buffer.endIndex) }
        while true {
            if var payload = try ServiceMessageCoding.nextPayload(from: &buffer) {
                // The payload may hold a secret: zeroed once decoded (the response holds copies
                // that are zeroed when released).
                defer { payload.resetBytes(in: payload.startIndex..<payload.endIndex) }
                let response = try ServiceMessageCoding.response(fromPayload: payload)
                guard response.isInterim else { return response }
                interim(response)
                continue
            }
            let more = try rethrowingUnavailable { try connection.receive(into: &buffer) }
            guard more else {
                throw KeychainError(.notAvailable, "keychaind closed the connection before answering")
            }
        }
    }

    /// An idle connection of this process, or a new one.
    private func takeConnection() throws -> UnixSocket {
        let process = getpid()
        let idle = idleConnections.withLock { idle -> UnixSocket? in
            if idle.owner != process {
                // Inherited across `fork`: the parent's to use, not this child's (closing the
                // child's copies leaves the parent's open).
                idle = (process, [])
            }
            return idle.sockets.popLast()
        }
        return try idle ?? connect()
    }

    /// Keeps `connection` for the next call (a few at most).
    private func checkIn(_ connection: UnixSocket) {
        let process = getpid()
        idleConnections.withLock { idle in
            if idle.owner == process && idle.sockets.count < 16 { idle.sockets.append(connection) }
        }
    }

    /// Connects, starting the daemon first when none listens and this client may.
    private func connect() throws -> UnixSocket {
        do {
            return try UnixSocket.connect(to: socketPath)
        } catch let error as SocketError where startsDaemon && (error.errno == ENOENT || error.errno == ECONNREFUSED) {
            try DaemonLauncher.start(socketPath: socketPath)
            return try rethrowingUnavailable { try UnixSocket.connect(to: socketPath) }
        } catch {
            throw unavailable(error)
        }
    }

    private func rethrowingUnavailable<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw unavailable(error) }
    }

    private func unavailable(_ error: any Error) -> any Error {
        if error is KeychainError { return error }
        return KeychainError(.notAvailable, "keychaind is not reachable (\(error))")
    }
}
