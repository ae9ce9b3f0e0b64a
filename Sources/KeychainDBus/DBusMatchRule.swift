/// A match rule for `AddMatch`: which broadcast messages the bus should send this connection.
///
/// Rendered as the bus expects: `key='value'` pairs joined by commas, each value quoted, a quote
/// inside a value written `'\''`.
package struct DBusMatchRule: Equatable, Sendable, CustomStringConvertible {
    /// The message type (`signal` for signals).
    package var type: String? = "signal"
    /// The sender: a unique name or a well-known name (the bus matches its current owner).
    package var sender: String?
    package var interface: String?
    package var member: String?
    package var path: String?
    /// Conditions on the first string arguments: index → value.
    package var arguments: [Int: String] = [:]

    package init(
        type: String? = "signal", sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: String? = nil, arguments: [Int: String] = [:]
    ) {
        self.type = type
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.arguments = arguments
    }

    /// The rule's text.
    package var description: String {
        var pairs: [String] = []
        if let type { pairs.append("type=" + Self.quoted(type)) }
        if let sender { pairs.append("sender=" + Self.quoted(sender)) }
        if let interface { pairs.append("interface=" + Self.quoted(interface)) }
        if let member { pairs.append("member=" + Self.quoted(member)) }
        if let path { pairs.append("path=" + Self.quoted(path)) }
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { pairs.append("arg\(index)=" + Self.quoted(value)) }
        return pairs.joined(separator: ",")
    }

    /// `value` in single quotes, a quote inside written `'\''`.
    private static func quoted(_ value: String) -> String {
        "'" + value.map { $0 == "'" ? "'\\''" : String($0) }.joined() + "'"
    }
}
