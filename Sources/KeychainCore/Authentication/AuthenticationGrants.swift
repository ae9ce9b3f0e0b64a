import Foundation
import Synchronization

/// The authentications a keychain verified, in memory only: each grant's identifier (32 random
/// bytes) names the factors the keychain itself checked for one caller. Lost when the process
/// ends; bounded in number (the oldest grant goes first).
final class AuthenticationGrants: Sendable {
    /// The factors one grant holds.
    struct Grant: Sendable {
        /// Who obtained it (`AccessContext.peer`): only the same caller may use it.
        var owner: String?
        /// Whether the keychain passcode was verified.
        var passcode = false
        /// The keyed digest of the enrolled fingerprints when a finger matched; nil when not.
        var biometry: Data?
        /// Issue order, for eviction.
        var serial: UInt64
    }

    /// The most grants kept at once.
    static let capacity = 4096

    private struct Table {
        var grants: [Data: Grant] = [:]
        var nextSerial: UInt64 = 0
    }

    private let table = Mutex(Table())

    /// The grant `identifier` names, if it exists and belongs to `owner`.
    func grant(_ identifier: Data?, owner: String?) -> Grant? {
        guard let identifier else { return nil }
        return table.withLock { table in
            guard let grant = table.grants[identifier], grant.owner == owner else { return nil }
            return grant
        }
    }

    /// Adds to the grant `identifier` names (when it exists and belongs to `owner`), or to a new
    /// one; returns the grant's identifier.
    func record(into identifier: Data?, owner: String?, _ change: (inout Grant) -> Void) throws -> Data {
        let fresh = try SecureRandom.data(count: 32)
        return table.withLock { table in
            if let identifier, var grant = table.grants[identifier], grant.owner == owner {
                change(&grant)
                table.grants[identifier] = grant
                return identifier
            }
            if table.grants.count >= Self.capacity,
                let oldest = table.grants.min(by: { $0.value.serial < $1.value.serial })?.key
            {
                table.grants.removeValue(forKey: oldest)
            }
            var grant = Grant(owner: owner, serial: table.nextSerial)
            table.nextSerial += 1
            change(&grant)
            table.grants[fresh] = grant
            return fresh
        }
    }

    /// Forgets every grant.
    func removeAll() {
        table.withLock { $0.grants.removeAll() }
    }

    /// Forgets the grant `identifier` names, if it belongs to `owner`.
    func revoke(_ identifier: Data, owner: String?) {
        table.withLock { table in
            if table.grants[identifier]?.owner == owner { table.grants.removeValue(forKey: identifier) }
        }
    }
}
