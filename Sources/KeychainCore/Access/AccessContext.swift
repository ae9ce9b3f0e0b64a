import Foundation

/// The access groups a caller may use, from its entitlements: the first is the default for adds;
/// searches cover all of them; naming a group outside the list is `errSecMissingEntitlement`. A
/// `*` group grants every group, as on Apple platforms.
public struct AccessContext: Sendable, Equatable {
    /// The group a process without an entitlements file gets.
    public static let defaultGroup = "default"

    /// The caller's groups in entitlement order, without `*`.
    public let accessGroups: [String]
    /// Whether the caller may use every group (`*` was among its groups).
    public let allowsAllGroups: Bool
    /// Who the caller is, for the authentications the keychain grants it: `keychaind` names
    /// each client process (its pid and start time), so a grant serves only the process that
    /// obtained it; nil in-process.
    public var peer: String?

    /// A context with `groups` in order; `*` among them grants all groups.
    public init(accessGroups groups: [String]) {
        accessGroups = groups.filter { $0 != "*" }
        allowsAllGroups = groups.contains("*")
    }

    /// The group an add uses when it names none.
    ///
    /// - Throws: `errSecMissingEntitlement` when the caller has no group.
    public func defaultGroupForAdd() throws -> String {
        guard let first = accessGroups.first else {
            throw KeychainError(.missingEntitlement, "the process has no keychain access groups")
        }
        return first
    }

    /// Whether the caller may use `group`.
    public func isEntitled(to group: String) -> Bool {
        allowsAllGroups || accessGroups.contains(group)
    }

    /// Throws `errSecMissingEntitlement` unless the caller may use `group`.
    public func requireEntitlement(to group: String) throws {
        guard isEntitled(to: group) else {
            throw KeychainError(.missingEntitlement, "the process is not entitled to the requested access group")
        }
    }

    /// Throws `errSecMissingEntitlement` when the caller has no group at all.
    func requireAnyGroup() throws {
        guard allowsAllGroups || !accessGroups.isEmpty else {
            throw KeychainError(.missingEntitlement, "the process has no keychain access groups")
        }
    }
}
