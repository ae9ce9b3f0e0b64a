/// A bus address: `;`-separated entries `transport:key=value,…`, values percent-escaped.
///
/// Only Unix-socket entries this client can connect to are kept: `unix:path=<file>` and
/// `unix:abstract=<name>` (Linux's abstract namespace); other transports (`tcp`, `launchd`,
/// `autolaunch`, …) and listen-only forms (`unix:dir=`, `unix:tmpdir=`) are skipped.
package struct DBusAddress: Equatable, Sendable {
    /// Where one entry's socket is.
    package enum Endpoint: Equatable, Sendable {
        /// A socket file.
        case path(String)
        /// A name in Linux's abstract socket namespace (without the leading NUL).
        case abstract(String)
    }

    /// The keys of a `unix:` entry this client uses.
    private enum Key: String {
        case path, abstract
    }

    /// The system bus's socket when `DBUS_SYSTEM_BUS_ADDRESS` does not name another.
    package static let defaultSystemBus = "unix:path=/run/dbus/system_bus_socket"

    /// The usable entries, in the address's order.
    package let endpoints: [Endpoint]

    /// Parses `text`.
    ///
    /// - Throws: `DBusError.connectionFailed` when no entry is usable, or an escape is malformed.
    package init(_ text: String) throws {
        var endpoints: [Endpoint] = []
        for entry in text.split(separator: ";", omittingEmptySubsequences: true) {
            guard let colon = entry.firstIndex(of: ":") else { continue }
            guard entry[..<colon] == "unix" else { continue }
            var keys: [Key: String] = [:]
            for pair in entry[entry.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "="), let key = Key(rawValue: String(pair[..<equals])) else { continue }
                keys[key] = try Self.unescape(pair[pair.index(after: equals)...])
            }
            if let path = keys[.path], !path.isEmpty {
                endpoints.append(.path(path))
            } else if let name = keys[.abstract], !name.isEmpty {
                endpoints.append(.abstract(name))
            }
        }
        guard !endpoints.isEmpty else { throw DBusError.connectionFailed("the address has no unix:path= or unix:abstract= entry") }
        self.endpoints = endpoints
    }

    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS` in `environment` if set and not empty,
    /// else `unix:path=/run/dbus/system_bus_socket`.
    package static func systemBus(environment: [String: String]) throws -> DBusAddress {
        let configured = environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? ""
        return try DBusAddress(configured.isEmpty ? defaultSystemBus : configured)
    }

    /// Decodes `%xx` escapes.
    private static func unescape(_ value: Substring) throws -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(value.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let high = hexValue(utf8.popFirst()!), let low = hexValue(utf8.popFirst()!) else {
                throw DBusError.connectionFailed("the address has a malformed %-escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DBusError.connectionFailed("the address is not valid UTF-8")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
