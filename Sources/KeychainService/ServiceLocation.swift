import Foundation
import KeychainCore

/// Where clients find `keychaind`, and how they choose between it and a keychain opened
/// in-process.
public enum ServiceLocation {
    /// The directory of the per-user daemon's socket: `$XDG_RUNTIME_DIR/swift-keychain`, else
    /// `/tmp/swift-keychain-<uid>` (a runtime directory is per user and private; the fallback is
    /// created 0700 and refused if another user owns it).
    public static var userDirectory: String {
        userDirectory(runtimeDirectory: environment("XDG_RUNTIME_DIR"), uid: getuid())
    }

    /// The per-user daemon's socket directory for a runtime directory (`XDG_RUNTIME_DIR`'s value,
    /// nil when unset) and a user.
    public static func userDirectory(runtimeDirectory: String?, uid: uid_t) -> String {
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/") {
            return (runtimeDirectory as NSString).appendingPathComponent("swift-keychain")
        }
        return "/tmp/swift-keychain-\(uid)"
    }

    /// The per-user daemon's socket.
    public static var userSocket: String {
        (userDirectory as NSString).appendingPathComponent(socketName)
    }

    /// The socket's file name in its directory.
    public static let socketName = "keychaind.sock"

    /// The system daemon's default runtime directory: one directory per user served,
    /// `<uid>/keychaind.sock` in it.
    public static let systemDirectory = "/run/swift-keychain"

    /// The system daemon's socket for `uid` in the runtime directory `directory`.
    public static func systemSocket(for uid: uid_t, in directory: String = systemDirectory) -> String {
        ((directory as NSString).appendingPathComponent("\(uid)") as NSString).appendingPathComponent(socketName)
    }

    /// The environment variable that chooses the mode (`embedded`, `daemon`, `system` or `auto`).
    public static let modeVariable = KeychainLocation.modeVariable

    /// The environment variable that names a socket to use instead of the default ones.
    public static let socketVariable = "KEYCHAIND_SOCKET"

    /// The socket named for this process's daemon: the calling thread's selection
    /// (`withSocket`), else `KEYCHAIND_SOCKET`; nil for the default one.
    package static var namedSocket: String? {
        if let selected = Thread.current.threadDictionary[socketSelectionKey] as? String { return selected }
        return environment(socketVariable)
    }

    /// Runs `body` with `socket` as the daemon's socket for the keychains the calling thread
    /// opens (as `KEYCHAIND_SOCKET` names one for a process), restoring the previous selection
    /// after. The process's environment is not touched, so other threads and child processes
    /// keep theirs (a test reaches a daemon of its own this way while other tests run).
    package static func withSocket<T>(_ socket: String, _ body: () throws -> T) rethrows -> T {
        let dictionary = Thread.current.threadDictionary
        let saved = dictionary[socketSelectionKey]
        dictionary[socketSelectionKey] = socket
        defer { dictionary[socketSelectionKey] = saved }
        return try body()
    }

    private static let socketSelectionKey = "swift-keychain.daemon-socket"

    /// The environment variable that names the `keychaind` executable a client may start.
    public static let executableVariable = "KEYCHAIND_PATH"

    /// How a client reaches its keychains.
    public enum Mode: Equatable, Sendable {
        /// In this process, always.
        case embedded
        /// Through `keychaind`, always (started if needed; an error when it cannot be).
        case daemon
        /// Through `keychaind` when one is reachable or can be started, else in this process.
        case automatic
        /// Through the system daemon (`keychaind --system`) on the user's socket, always: the
        /// keychains are in the daemon's state directory, which the client never opens and
        /// where it never starts a daemon (errSecNotAvailable when none answers).
        case system
    }

    /// The mode `KEYCHAIN_MODE` asks for.
    ///
    /// - Throws: `.param` for a value other than `embedded`, `daemon`, `system` or `auto` (a typo
    ///   must not silently choose a mode).
    public static func requestedMode() throws -> Mode {
        // Read on every SecItem call: compared in place, without making a String.
        // The name is a literal (`modeVariable`): a `String` would be copied into a new C string.
        try mode(named: getenv(UnsafeRawPointer(("KEYCHAIN_MODE" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)))
    }

    /// The mode a value of `KEYCHAIN_MODE` names (nil or empty: automatic).
    ///
    /// - Throws: `.param` for a value other than `embedded`, `daemon`, `system` or `auto`.
    public static func mode(named value: UnsafePointer<CChar>?) throws -> Mode {
        guard let value, value.pointee != 0 else { return .automatic }
        if strcmp(value, "embedded") == 0 { return .embedded }
        if strcmp(value, "daemon") == 0 { return .daemon }
        if strcmp(value, "auto") == 0 { return .automatic }
        if strcmp(value, "system") == 0 { return .system }
        throw KeychainError(.param, "\(modeVariable) must be embedded, daemon, system or auto")
    }

    /// A non-empty environment variable.
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let string = String(cString: value)
        return string.isEmpty ? nil : string
    }
}
