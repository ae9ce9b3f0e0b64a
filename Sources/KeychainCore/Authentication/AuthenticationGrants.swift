import Foundation
import Synchronization

/// The authentications a keychain verified, in memory only: each grant's identifier (32 random
/// bytes) names the factors the keychain itself checked for one caller. Lost when the process
/// ends; bounded in number (the oldest grant goes first).
///
/// A factor lasts `factorLifetime` from the moment the keychain verified it, by the keychain's
/// clock (`KeychainOptions.clock`); after that the grant no longer holds it and the user is asked
/// again. Verifying the factor again starts a new period. A clock set back to before a factor's
/// verification ends the factor too, so setting the clock never lengthens a factor's period.
final class AuthenticationGrants: Sendable {
    /// The factors one grant holds.
    struct Grant: Sendable {
        /// Who obtained it (`AccessContext.peer`): only the same caller may use it.
        var owner: String?
        /// Whether the keychain passcode was verified (within the lifetime).
        var passcode = false
        /// The keyed digest of the enrolled fingerprints when a finger matched (within the
        /// lifetime); nil when not.
        var biometry: Data?
        /// Issue order, for eviction.
        var serial: UInt64
        /// When the passcode was verified.
        var passcodeVerified: Date?
        /// When the finger matched.
        var biometryVerified: Date?
    }

    /// The most grants kept at once.
    static let capacity = 4096

    /// How long a verified factor serves. Apple documents no end for an evaluated `LAContext`
    /// (it serves until invalidated); iOS is observed to ask again after five to ten minutes.
    /// A keychain shared by every program of the user bounds it: ten minutes.
    static let factorLifetime: TimeInterval = 600

    private struct Table {
        var grants: [Data: Grant] = [:]
        var nextSerial: UInt64 = 0
    }

    private let table = Mutex(Table())
    /// The keychain's clock.
    private let clock: any KeychainClock

    /// An empty table whose factors expire by `clock`.
    init(clock: any KeychainClock) {
        self.clock = clock
    }

    /// Whether a factor verified at `verified` no longer serves at `now`: `factorLifetime` has
    /// passed, or the clock was set back to before the verification.
    private static func expired(_ verified: Date, at now: Date) -> Bool {
        let age = now.timeIntervalSince(verified)
        return age < 0 || age >= factorLifetime
    }

    /// The grant `identifier` names, if it exists and belongs to `owner`, holding only the
    /// factors verified within `factorLifetime`.
    func grant(_ identifier: Data?, owner: String?) -> Grant? {
        guard let identifier else { return nil }
        let now = clock.now
        return table.withLock { table in
            guard var grant = table.grants[identifier], grant.owner == owner else { return nil }
            if let verified = grant.passcodeVerified, Self.expired(verified, at: now) {
                grant.passcode = false
                grant.passcodeVerified = nil
            }
            if let verified = grant.biometryVerified, Self.expired(verified, at: now) {
                grant.biometry = nil
                grant.biometryVerified = nil
            }
            guard grant.passcode || grant.biometry != nil else {
                table.grants.removeValue(forKey: identifier)
                return nil
            }
            table.grants[identifier] = grant
            return grant
        }
    }

    /// Adds the factors `change` sets to the grant `identifier` names (when it exists and belongs
    /// to `owner`), or to a new one, each verified now; returns the grant's identifier.
    func record(into identifier: Data?, owner: String?, _ change: (inout Grant) -> Void) throws -> Data {
        let fresh = try SecureRandom.data(count: 32)
        let now = clock.now
        var verified = Grant(owner: owner, serial: 0)
        change(&verified)
        func add(to grant: inout Grant) {
            if verified.passcode {
                grant.passcode = true
                grant.passcodeVerified = now
            }
            if let digest = verified.biometry {
                grant.biometry = digest
                grant.biometryVerified = now
            }
        }
        return table.withLock { table in
            if let identifier, var grant = table.grants[identifier], grant.owner == owner {
                add(to: &grant)
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
            add(to: &grant)
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
