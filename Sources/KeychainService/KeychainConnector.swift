import Foundation
import KeychainCore
import Synchronization

/// Opens keychains for a client: through `keychaind` or in this process, as `KEYCHAIN_MODE`
/// says (`ServiceLocation.Mode`).
///
/// In the automatic mode the first call decides for the rest of the process: a daemon that is
/// reachable, or that can be started, serves every keychain; otherwise every keychain is opened
/// in-process. (Switching back and forth would split one keychain's lock state in two.)
public enum KeychainConnector {
    /// The keychain at `path` for a caller whose in-process access groups are `context`.
    ///
    /// - Parameters:
    ///   - create: create the keychain (without a passcode) when it does not exist.
    ///   - context: the groups the caller has when the keychain is opened in-process (from its
    ///     entitlements file). Through the daemon it is not used: the daemon decides the caller's
    ///     groups from its credentials, and a client cannot claim more.
    /// - Throws: the engine's errors; `.notAvailable` when the daemon mode is required and no
    ///   daemon can be reached or started.
    public static func open(path: String, create: Bool, context: @autoclosure () throws -> AccessContext) throws -> any KeychainHandle {
        switch try route() {
        case .embedded:
            return EmbeddedKeychain(try Keychain.open(path: path, create: create), context: try context())
        case .daemon(let client):
            return try client.open(path: path, create: create)
        }
    }

    /// The process's default keychain (created on first use).
    public static func openDefault(context: @autoclosure () throws -> AccessContext) throws -> any KeychainHandle {
        switch try route() {
        case .embedded:
            return EmbeddedKeychain(try Keychain.openDefault(), context: try context())
        case .daemon(let client):
            return try client.open(path: KeychainLocation.defaultKeychainPath, create: true)
        }
    }

    /// Creates a keychain protected by `passcode` and opens it.
    public static func create(path: String, passcode: Data?, context: @autoclosure () throws -> AccessContext) throws -> any KeychainHandle {
        switch try route() {
        case .embedded:
            return EmbeddedKeychain(try Keychain.create(path: path, passcode: passcode), context: try context())
        case .daemon(let client):
            return try client.create(path: path, passcode: passcode)
        }
    }

    /// Deletes the keychain at `path`.
    public static func delete(path: String) throws {
        switch try route() {
        case .embedded: try Keychain.delete(path: path)
        case .daemon(let client): try client.deleteKeychain(path: path)
        }
    }

    /// The daemon's client when this process uses the daemon; nil when it opens keychains itself.
    public static func daemonClient() throws -> ServiceClient? {
        if case .daemon(let client) = try route() { return client }
        return nil
    }

    /// Where this process's keychains are.
    enum Route: Sendable {
        case embedded
        case daemon(ServiceClient)
    }

    /// The route for the current `KEYCHAIN_MODE`; the automatic mode's choice is kept.
    static func route() throws -> Route {
        switch try ServiceLocation.requestedMode() {
        case .embedded:
            return .embedded
        case .daemon:
            return .daemon(try ServiceClient.shared(startingIfNeeded: true))
        case .system:
            return .daemon(try ServiceClient.system())
        case .automatic:
            return automaticRoute.withLock { chosen in
                if let chosen { return chosen }
                let route: Route
                if let client = try? ServiceClient.shared(startingIfNeeded: true) {
                    route = .daemon(client)
                } else {
                    route = .embedded
                }
                chosen = route
                return route
            }
        }
    }

    private static let automaticRoute = Mutex<Route?>(nil)
}
