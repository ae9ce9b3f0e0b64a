import Foundation

/// A loopback TCP server on two consecutive ports (a TPM's command and control ports) that
/// accepts every connection and resets it at once (SO_LINGER 0): a TPM that goes away in the
/// middle of a command: the client's command goes out and the answer never comes.
final class HangingUpServer: @unchecked Sendable {
    /// The command port (the control port is the next one).
    let port: UInt16
    private let listeners: [Int32]
    private let lock = NSLock()
    private var stopped = false

    /// The TCTI string that points a TPM client at this server.
    var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    init() throws {
        for _ in 0..<50 {
            let candidate = UInt16.random(in: 20_000...60_000)
            if let first = Self.listen(on: candidate) {
                if let second = Self.listen(on: candidate + 1) {
                    port = candidate
                    listeners = [first, second]
                    for listener in listeners {
                        Thread.detachNewThread { [self] in self.serve(listener) }
                    }
                    return
                }
                close(first)
            }
        }
        throw CocoaError(.featureUnsupported)
    }

    deinit { stop() }

    /// Stops accepting: the listening sockets are shut down, which ends the accept loops.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        for listener in listeners { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private func serve(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { break }
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(connection)
        }
        close(listener)
    }

    private static func listen(on port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, Glibc.listen(fd, 16) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
