import CLinuxSupport
import Foundation
import KeychainCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A connected Unix stream socket, owned: closed when released.
///
/// The one place the client and the daemon call the socket API. Writes use `MSG_NOSIGNAL`, so a
/// peer that went away is an `EPIPE` error, never a `SIGPIPE` that kills the process.
public final class UnixSocket: @unchecked Sendable {
    /// The descriptor (close-on-exec).
    public let descriptor: Int32

    /// Takes ownership of `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Connects to the socket at `path`.
    ///
    /// - Throws: `SocketError` with the `errno` of `socket` or `connect` (`ENOENT` or
    ///   `ECONNREFUSED` when no daemon listens there).
    public static func connect(to path: String) throws -> UnixSocket {
        let socket = UnixSocket(descriptor: try Self.makeSocket())
        try withAddress(path) { address, length in
            guard Glibc.connect(socket.descriptor, address, length) == 0 else { throw SocketError(errno: errno, operation: "connect") }
        }
        return socket
    }

    /// Writes every byte of `data`.
    public func send(_ data: Data) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw SocketError(errno: errno, operation: "send")
                }
                offset += written
            }
        }
    }

    /// Reads what is available (waiting for at least one byte) into `buffer`; returns false at
    /// the end of the stream.
    public func receive(into buffer: inout Data, maximum: Int = 65_536) throws -> Bool {
        try receive(into: &buffer, maximum: maximum) { recv(descriptor, $0, $1, 0) }
    }

    /// Reads what one process sent (waiting for at least one byte) into `buffer`, on a socket
    /// accepted from a `UnixListener` (which asks the kernel for senders' credentials); returns
    /// who sent it, or nil at the end of the stream.
    ///
    /// The kernel stamps every write with the writing process and never joins the writes of two
    /// processes in one read, so a process that shares this connection (by `fork` or descriptor
    /// passing) is told apart from the one that connected.
    public func receiveWithSender(into buffer: inout Data, maximum: Int = 65_536) throws -> MessageSender? {
        var sender = MessageSender(pid: -1, uid: UInt32.max)
        let more = try receive(into: &buffer, maximum: maximum) { chunk, length in
            clinux_receive_with_sender(descriptor, chunk, length, &sender.pid, &sender.uid)
        }
        return more ? sender : nil
    }

    private func receive(into buffer: inout Data, maximum: Int, _ call: (UnsafeMutableRawPointer, Int) -> Int) throws -> Bool {
        try withUnsafeTemporaryAllocation(byteCount: maximum, alignment: 16) { chunk in
            while true {
                let count = call(chunk.baseAddress!, maximum)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SocketError(errno: errno, operation: "recv")
                }
                if count == 0 { return false }
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                // What was received may be a secret: no copy stays behind in the scratch space.
                SecureBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: chunk[0..<count]))
                return true
            }
        }
    }

    /// A new close-on-exec stream socket.
    static func makeSocket() throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(errno: errno, operation: "socket") }
        return descriptor
    }

    /// Calls `body` with a `sockaddr_un` for `path`.
    ///
    /// - Throws: `SocketError(ENAMETOOLONG)` when the path does not fit (108 bytes on Linux).
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) throws -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity, !bytes.contains(0) else { throw SocketError(errno: ENAMETOOLONG, operation: "bind") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                try body(address, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}

/// The process that wrote bytes read from a socket, as the kernel recorded it.
public struct MessageSender: Equatable, Sendable {
    /// The writer's process id in the reader's pid namespace; -1 when the bytes carried no
    /// credentials.
    public var pid: Int32
    /// The writer's user id; `UInt32.max` when the bytes carried no credentials.
    public var uid: UInt32
}

/// A failed socket call.
public struct SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errno` value.
    public let errno: Int32
    /// The call that failed.
    public let operation: String

    /// Creates an error.
    public init(errno: Int32, operation: String) {
        self.errno = errno
        self.operation = operation
    }

    public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}

/// A listening Unix stream socket.
public final class UnixListener: @unchecked Sendable {
    /// The descriptor (close-on-exec).
    public let descriptor: Int32
    /// The socket file's path, removed when the listener is closed (nil for an inherited socket).
    public let path: String?

    /// Creates the socket file at `path` (mode 0600 via the umask) and listens.
    ///
    /// - Throws: `SocketError`; `EADDRINUSE` when a file is already there.
    public init(path: String, backlog: Int32 = 128) throws {
        let descriptor = try UnixSocket.makeSocket()
        do {
            let savedMask = umask(0o177)
            defer { umask(savedMask) }
            try UnixSocket.withAddress(path) { address, length in
                guard bind(descriptor, address, length) == 0 else { throw SocketError(errno: errno, operation: "bind") }
            }
            guard clinux_pass_credentials(descriptor) == 0 else { throw SocketError(errno: errno, operation: "setsockopt(SO_PASSCRED)") }
            guard listen(descriptor, backlog) == 0 else { throw SocketError(errno: errno, operation: "listen") }
        } catch {
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.path = path
    }

    /// Adopts a listening socket passed by systemd (`LISTEN_FDS`).
    public init(inheritedDescriptor: Int32) {
        descriptor = inheritedDescriptor
        _ = fcntl(inheritedDescriptor, F_SETFD, FD_CLOEXEC)
        _ = clinux_pass_credentials(inheritedDescriptor)
        path = nil
    }

    deinit { close(descriptor) }

    /// Waits for the next connection; nil when the call was interrupted or failed transiently
    /// (the caller loops).
    public func accept() -> UnixSocket? {
        let client = Glibc.accept(descriptor, nil, nil)
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        // Inherited from the listener; set again for a listener adopted from systemd.
        _ = clinux_pass_credentials(client)
        return UnixSocket(descriptor: client)
    }
}
