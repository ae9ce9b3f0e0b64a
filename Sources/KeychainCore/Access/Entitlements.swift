import Foundation
import Synchronization

/// A process's keychain entitlements, read from a property list in the format of an Apple
/// `.entitlements` file (`application-identifier`, `keychain-access-groups`): Linux has no code
/// signature to carry them, so a file declares them.
///
/// The file is named by the `KEYCHAIN_ENTITLEMENTS` environment variable, or sits beside the
/// executable as `<executable>.entitlements`. Without one, the process has the single group
/// `AccessContext.defaultGroup`.
public struct Entitlements: Sendable, Equatable {
    /// The environment variable naming the entitlements file.
    public static let environmentVariable = "KEYCHAIN_ENTITLEMENTS"

    /// `application-identifier` (`TEAMID.bundle.id`).
    public var applicationIdentifier: String?
    /// `keychain-access-groups`, in order.
    public var keychainAccessGroups: [String]
    /// `com.apple.security.application-groups`, in order.
    public var applicationGroups: [String]

    /// Entitlements with the given values.
    public init(applicationIdentifier: String?, keychainAccessGroups: [String], applicationGroups: [String] = []) {
        self.applicationIdentifier = applicationIdentifier
        self.keychainAccessGroups = keychainAccessGroups
        self.applicationGroups = applicationGroups
    }

    /// Parses a property list (XML, binary or OpenStep). `$(AppIdentifierPrefix)` and
    /// `$(TeamIdentifierPrefix)` in group names expand to the application identifier's team prefix.
    ///
    /// - Throws: `errSecParam` when the data is not a dictionary property list.
    public init(propertyList data: Data) throws {
        let object = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        guard let dictionary = object as? [String: Any] else {
            throw KeychainError.param("the entitlements file is not a property list dictionary")
        }
        let identifier =
            dictionary["application-identifier"] as? String
            ?? dictionary["com.apple.application-identifier"] as? String
        let prefix = identifier.flatMap { id in id.firstIndex(of: ".").map { String(id[...$0]) } } ?? ""
        func groups(_ key: String) -> [String] {
            ((dictionary[key] as? [Any]) ?? []).compactMap { $0 as? String }.map {
                $0.replacingOccurrences(of: "$(AppIdentifierPrefix)", with: prefix)
                    .replacingOccurrences(of: "$(TeamIdentifierPrefix)", with: prefix)
            }
        }
        self.init(
            applicationIdentifier: identifier, keychainAccessGroups: groups("keychain-access-groups"),
            applicationGroups: groups("com.apple.security.application-groups"))
    }

    /// The access groups in Apple's order: keychain groups, the application identifier, then
    /// application groups; `com.apple.token` is read-only and left out.
    public var accessGroups: [String] {
        var ordered: [String] = []
        for group in keychainAccessGroups + [applicationIdentifier].compactMap({ $0 }) + applicationGroups
        where group != "com.apple.token" && !ordered.contains(group) {
            ordered.append(group)
        }
        return ordered
    }

    /// The current process's access context, from its entitlements file or the default group.
    ///
    /// - Throws: `errSecMissingEntitlement` when the named file cannot be read or parsed: a
    ///   process that declares entitlements never silently falls back to the default group.
    public static func currentContext() throws -> AccessContext {
        // Read on every SecItem call: the variable's value is compared with the cached path in
        // place, and made into a string only when it names another file.
        let named = FileSystem.environmentBytes("KEYCHAIN_ENTITLEMENTS")
        if let cached = cache.withLock({ $0 }) {
            if let named {
                if cached.path.utf8.withContiguousStorageIfAvailable({ strncmp($0.baseAddress!, named, $0.count) == 0 && named[$0.count] == 0 }) == true {
                    return cached.context
                }
            } else if cached.path == besideExecutable {
                return cached.context
            }
        }
        let path = named.map { String(cString: $0) } ?? besideExecutable
        guard let path else { return defaultContext }
        guard let data = FileSystem.read(path), let entitlements = try? Entitlements(propertyList: data) else {
            throw KeychainError(.missingEntitlement, "the entitlements file cannot be read")
        }
        let context = AccessContext(accessGroups: entitlements.accessGroups)
        cache.withLock { $0 = (path, context) }
        return context
    }

    private static let cache = Mutex<(path: String, context: AccessContext)?>(nil)

    /// The context of a process without an entitlements file.
    private static let defaultContext = AccessContext(accessGroups: [AccessContext.defaultGroup])

    /// `<executable>.entitlements` if it exists; looked up once per process.
    private static let besideExecutable: String? = FileSystem.executablePath
        .map { $0 + ".entitlements" }.flatMap { FileSystem.exists($0) ? $0 : nil }
}
