import Foundation
import KeychainCore
import KeychainService

/// Sync of a keychain `keychaind` holds, run inside the daemon for its clients
/// (`ServiceOperation.syncNow`, `.syncStatus`): on the daemon's own keychain, so an exchange
/// lists the rows' versions and opens only the rows that changed, and adds downloaded items in
/// batches, instead of reading every synchronizable item through the item protocol.
///
/// A client (`security sync now|status` whose keychain is a `RemoteKeychain`) asks with
/// `syncNow(_:progress:)` and `status(_:)`; the daemon answers with `respondToSyncNow` and
/// `respondToStatus`. Only a caller entitled to the sync state's access group (`accessGroup`)
/// may ask, as reading the sync state through the item protocol requires; the exchange itself
/// sees every group, as the background worker's does (a sync carries the synchronizable items of
/// every group). An exchange takes the keychain's `SyncExchangeLock`: one that the background
/// worker is running finishes first. The download's progress reaches the client while the
/// exchange runs (`ServiceResponse.syncProgress`).
package enum DaemonSync {
    /// The access group a caller must be entitled to: the sync state's.
    package static let accessGroup = SyncState.accessGroup

    /// The access the daemon's exchanges run with: every group.
    package static let context = AccessContext(accessGroups: ["*"])

    // MARK: - Client

    /// `keychain` when the user's keychaind serves it (which runs exchanges and reads the status
    /// itself); nil in-process and through the system daemon (which runs no sync: the exchange is
    /// the caller's own, through the item calls).
    package static func servingDaemon(of keychain: any KeychainHandle) -> RemoteKeychain? {
        guard !KeychainLocation.isSystemMode else { return nil }
        return keychain as? RemoteKeychain
    }

    /// One exchange of `keychain`, where its exchanges run: by the user's keychaind when it
    /// serves the keychain (one at a time with its background sync), otherwise in this process.
    package static func exchange(_ keychain: any KeychainHandle, progress: SyncEngine.Progress? = nil) throws -> SyncReport {
        if let remote = servingDaemon(of: keychain) { return try syncNow(remote, progress: progress) }
        return try SyncEngine.syncNow(keychain, progress: progress)
    }

    /// `SyncEngine.syncNow` run by the daemon that serves `keychain`.
    ///
    /// - Throws: the exchange's `SyncError`, as an exchange in this process would throw it; the
    ///   engine's error when the daemon refused the request or cannot be reached.
    package static func syncNow(_ keychain: RemoteKeychain, progress: SyncEngine.Progress? = nil) throws -> SyncReport {
        let summary: SyncExchangeReport
        do {
            summary = try keychain.syncNow { applied, total in progress?(applied, total) }
        } catch let failure as SyncFailure {
            throw SyncError(failure)
        }
        var report = SyncReport()
        report.uploaded = summary.uploaded
        report.uploadedDeletions = summary.uploadedDeletions
        report.applied = summary.applied
        report.appliedDeletions = summary.appliedDeletions
        report.refused = summary.refused
        report.fullRefetch = summary.fullRefetch
        report.damagedLocally = summary.damagedLocally
        return report
    }

    /// `SyncEngine.status` read by the daemon that serves `keychain`.
    ///
    /// - Throws: as `syncNow`.
    package static func status(_ keychain: RemoteKeychain) throws -> SyncStatus {
        let status: SyncStatusReport
        do {
            status = try keychain.syncStatus()
        } catch let failure as SyncFailure {
            throw SyncError(failure)
        }
        return SyncStatus(
            accountID: status.accountID, deviceID: status.deviceID,
            devices: status.devices?.map { device in
                let standing: SyncStatus.Device.Standing
                switch device.standing {
                case .trusted: standing = .trusted
                case .notTrusted: standing = .notTrusted
                case .pending: standing = .pending
                }
                return SyncStatus.Device(id: device.id, standing: standing)
            },
            serverError: status.serverError, lastSync: status.lastSync, lastError: status.lastError,
            pendingChanges: status.pendingChanges)
    }

    // MARK: - Daemon

    /// Runs one exchange of `keychain` (the daemon's own, with `context`) once no other exchange
    /// of it runs, telling `progress` how far its download has got.
    ///
    /// - Returns: `syncReport`, or `syncFailure` with the exchange's error.
    /// - Throws: an error that is not the sync layer's (none is expected: the engine reports
    ///   every failure as a `SyncError`).
    package static func respondToSyncNow(_ keychain: EmbeddedKeychain, progress: SyncEngine.Progress?) throws -> ServiceResponse {
        do {
            let report = try SyncExchangeLock.run(path: keychain.path) { try SyncEngine.syncNow(keychain, progress: progress) }
            return .syncReport(SyncExchangeReport(
                uploaded: report.uploaded, uploadedDeletions: report.uploadedDeletions, applied: report.applied,
                appliedDeletions: report.appliedDeletions, refused: report.refused, fullRefetch: report.fullRefetch,
                damagedLocally: report.damagedLocally))
        } catch let error as SyncError {
            return .syncFailure(SyncFailure(error))
        }
    }

    /// Reads the sync status of `keychain` (the daemon's own, with `context`).
    ///
    /// - Returns: `syncStatus`, or `syncFailure` with the status's error.
    package static func respondToStatus(_ keychain: EmbeddedKeychain) throws -> ServiceResponse {
        do {
            let status = try SyncEngine.status(keychain)
            return .syncStatus(SyncStatusReport(
                accountID: status.accountID, deviceID: status.deviceID,
                devices: status.devices?.map { device in
                    let standing: SyncStatusReport.Device.Standing
                    switch device.standing {
                    case .trusted: standing = .trusted
                    case .notTrusted: standing = .notTrusted
                    case .pending: standing = .pending
                    }
                    return SyncStatusReport.Device(id: device.id, standing: standing)
                },
                serverError: status.serverError, lastSync: status.lastSync, lastError: status.lastError,
                pendingChanges: status.pendingChanges))
        } catch let error as SyncError {
            return .syncFailure(SyncFailure(error))
        }
    }
}

extension SyncError {
    /// The error a daemon reported (`SyncFailure`); a code this build does not know is a
    /// keychain failure with the same message.
    init(_ failure: SyncFailure) {
        self.init(Code(rawValue: failure.code) ?? .keychain, failure.message, sqlState: failure.sqlState)
    }
}

extension SyncFailure {
    /// `error` as the daemon reports it.
    init(_ error: SyncError) {
        self.init(code: error.code.rawValue, message: error.message, sqlState: error.sqlState)
    }
}
