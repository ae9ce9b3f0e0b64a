import Foundation
import KeychainCore

extension RemoteKeychain {
    /// Runs one sync exchange of this keychain inside `keychaind` (`ServiceOperation.syncNow`),
    /// on the daemon's own keychain, one at a time with its background sync.
    ///
    /// - Parameter progress: told how far a download has got (`applied` of `total` records), as
    ///   the daemon reports it during the exchange.
    /// - Throws: `SyncFailure` when the exchange failed; the engine's error when the daemon refused
    ///   the request (`errSecMissingEntitlement` for a caller not entitled to the sync state's
    ///   access group) or cannot be reached.
    public func syncNow(progress: (_ applied: Int, _ total: Int) -> Void) throws -> SyncExchangeReport {
        let request = ServiceRequest(keychainPath: path, operation: .syncNow)
        let answer = try client.send(request) { interim in
            if case .syncProgress(let applied, let total) = interim { progress(applied, total) }
        }
        switch answer {
        case .syncReport(let report): return report
        case .syncFailure(let failure): throw failure
        default: throw KeychainError(.internal, "keychaind answered syncNow with a response of the wrong kind")
        }
    }

    /// This keychain's sync status as `keychaind` reads it (`ServiceOperation.syncStatus`).
    ///
    /// - Throws: `SyncFailure` when the status cannot be read (the keychain does not sync); the
    ///   engine's error when the daemon refused the request or cannot be reached.
    public func syncStatus() throws -> SyncStatusReport {
        switch try send(.syncStatus) {
        case .syncStatus(let status): return status
        case .syncFailure(let failure): throw failure
        default: throw KeychainError(.internal, "keychaind answered syncStatus with a response of the wrong kind")
        }
    }
}
