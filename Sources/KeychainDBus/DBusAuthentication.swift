#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The SASL exchange that opens a connection: a NUL byte, `AUTH EXTERNAL <uid>` with the
/// process's uid as decimal text in hex, the server's `OK <guid>`, then `BEGIN`, after which
/// messages flow. The bus checks the uid against the socket's peer credentials. A `REJECTED`
/// answer, or any other line, fails; answer lines are bounded (a server that never ends its
/// line cannot make this grow without limit).
enum DBusAuthentication {
    /// The longest line accepted from the server.
    static let maximumLineLength = 4096

    /// Authenticates on `socket`; returns the bytes received after the server's `OK` line (none,
    /// from a conforming server).
    static func authenticate(_ socket: DBusSocket, uid: uid_t = getuid()) throws -> [UInt8] {
        let hexUID = String(uid).utf8.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]], as: UTF8.self)
        }.joined()
        try socket.send([0] + Array("AUTH EXTERNAL \(hexUID)\r\n".utf8))
        var buffer: [UInt8] = []
        let line = try readLine(socket, &buffer)
        guard line.hasPrefix("OK ") else {
            try? socket.send(Array("CANCEL\r\n".utf8))
            throw DBusError.authenticationFailed(line.hasPrefix("REJECTED") ? "EXTERNAL rejected" : "unexpected answer")
        }
        try socket.send(Array("BEGIN\r\n".utf8))
        return buffer
    }

    /// The next `\r\n`-terminated line (without it), leaving what follows in `buffer`.
    private static func readLine(_ socket: DBusSocket, _ buffer: inout [UInt8]) throws -> String {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                guard end > 0, buffer[end - 1] == UInt8(ascii: "\r") else {
                    throw DBusError.authenticationFailed("a line not ended by CR LF")
                }
                let line = String(decoding: buffer[..<(end - 1)], as: UTF8.self)
                buffer.removeSubrange(...end)
                return line
            }
            guard buffer.count <= maximumLineLength else { throw DBusError.authenticationFailed("an answer line too long") }
            guard try socket.receive(into: &buffer, maximum: maximumLineLength) else { throw DBusError.disconnected }
        }
    }
}
