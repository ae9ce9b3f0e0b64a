/// What went wrong talking to a D-Bus peer.
///
/// A remote error reply keeps the D-Bus error name (`org.freedesktop.DBus.Error.UnknownMethod`,
/// a service's own names) and its message; the other cases are local: bytes that are not a valid
/// message, an address or bus that cannot be reached, authentication refused, the connection
/// closed, no reply in time.
package enum DBusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer answered with an error reply: its name and its first string argument (if any).
    case remote(name: String, message: String)
    /// Bytes received, or a value to send, that break the marshalling rules (the rule named).
    case invalidMessage(String)
    /// No address entry could be connected (the reason for the last one tried).
    case connectionFailed(String)
    /// The bus refused the SASL `EXTERNAL` authentication, or answered out of protocol.
    case authenticationFailed(String)
    /// The connection is closed: no reply will come.
    case disconnected
    /// No reply came within the call's timeout.
    case timedOut

    /// The D-Bus error name of a remote error, nil for local failures.
    package var name: String? {
        if case .remote(let name, _) = self { return name }
        return nil
    }

    package var description: String {
        switch self {
        case .remote(let name, let message): message.isEmpty ? name : "\(name): \(message)"
        case .invalidMessage(let rule): "invalid D-Bus message: \(rule)"
        case .connectionFailed(let reason): "cannot connect to the bus: \(reason)"
        case .authenticationFailed(let reason): "the bus refused authentication: \(reason)"
        case .disconnected: "the bus connection is closed"
        case .timedOut: "no reply from the bus in time"
        }
    }
}
