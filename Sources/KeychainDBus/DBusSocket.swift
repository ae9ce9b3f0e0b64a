#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A connected Unix stream socket to a bus, owned: closed when released. The one place this
/// module calls the socket API. Writes use `MSG_NOSIGNAL` (a bus that went away is an error,
/// never a `SIGPIPE`), and both directions can be given timeouts so no call blocks for ever.
package final class DBusSocket: @unchecked Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Connects to `endpoint`.
    ///
    /// - Throws: `DBusError.connectionFailed` with the reason of `socket` or `connect`.
    package static func connect(to endpoint: DBusAddress.Endpoint) throws -> DBusSocket {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw DBusError.connectionFailed("socket: \(Self.reason(errno))") }
        let connection = DBusSocket(descriptor: descriptor)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch endpoint {
        case .path(let path): name = Array(path.utf8) + [0]
        case .abstract(let abstract): name = [0] + Array(abstract.utf8)
        }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count <= capacity else { throw DBusError.connectionFailed("the socket name is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count)
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        guard status == 0 else { throw DBusError.connectionFailed("connect: \(Self.reason(errno))") }
        return connection
    }

    /// Sets how long a receive (`receive`) and a send (`send`) may block; 0 waits for ever.
    package func setTimeouts(receive: Int, send: Int) {
        for (option, seconds) in [(SO_RCVTIMEO, receive), (SO_SNDTIMEO, send)] {
            var value = timeval(tv_sec: seconds, tv_usec: 0)
            _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// Writes every byte of `bytes`.
    ///
    /// - Throws: `DBusError.timedOut` when the bus did not take them within the send timeout,
    ///   `DBusError.disconnected` on any other failure.
    package func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw errno == EAGAIN || errno == EWOULDBLOCK ? DBusError.timedOut : DBusError.disconnected
                }
                offset += written
            }
        }
    }

    /// Waits for bytes and appends what arrived (at most `maximum`) to `buffer`; false at the
    /// end of the stream.
    ///
    /// - Throws: `DBusError.timedOut` after the receive timeout, `DBusError.disconnected` on a
    ///   failure.
    package func receive(into buffer: inout [UInt8], maximum: Int = 65_536) throws -> Bool {
        try withUnsafeTemporaryAllocation(byteCount: maximum, alignment: 8) { chunk in
            while true {
                let count = recv(descriptor, chunk.baseAddress, maximum, 0)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw errno == EAGAIN || errno == EWOULDBLOCK ? DBusError.timedOut : DBusError.disconnected
                }
                if count == 0 { return false }
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                return true
            }
        }
    }

    /// Ends both directions: a thread blocked in `receive` sees the end of the stream. The
    /// descriptor stays open (and its number unused by others) until the socket is released.
    package func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
