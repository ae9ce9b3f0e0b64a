import Foundation

/// What one exchange (`SyncEngine.syncNow`) did.
package struct SyncReport: Sendable {
    /// Local additions and changes uploaded.
    package var uploaded = 0
    /// Local deletions uploaded (and losing duplicates removed from the server).
    package var uploadedDeletions = 0
    /// Records from other devices applied (added or changed locally).
    package var applied = 0
    /// Deletions from other devices applied.
    package var appliedDeletions = 0
    /// Why records from the server were refused (each left the keychain untouched).
    package var refused: [String] = []
    /// Whether every record was fetched again: this device's last change sequence was below the
    /// server's tombstone horizon, so deletions it had not seen may have been collected.
    package var fullRefetch = false
    /// Whether synchronizable rows were removed from the keychain's database behind its back:
    /// their items were neither uploaded nor taken for deleted (the other devices keep them).
    /// `security dump-keychain` reports the damage; deleting such an item ends it.
    package var damagedLocally = false
}

/// What `security sync status` shows.
package struct SyncStatus: Sendable {
    /// A device of the account as the server lists it.
    package struct Device: Sendable {
        /// Where a device stands for this device.
        package enum Standing: Sendable, Equatable {
            /// This device trusts it: it holds the public keys it verified, a holder of the
            /// account's current keys vouched for them, and its device list (if signed under the
            /// current keys) verifies.
            case trusted
            /// On the server but not trusted (a device the server made up, a removed device, or
            /// one whose list does not verify).
            case notTrusted
            /// Asked to join and waits for a trusted device's approval.
            case pending
        }

        package let id: UUID
        package let standing: Standing
    }

    package let accountID: UUID
    package let deviceID: UUID
    /// The devices, or nil when the server could not be reached (`serverError` says why).
    package let devices: [Device]?
    package let serverError: String?
    package let lastSync: Date?
    /// Why the last exchange failed (the server unreachable, a record refused); nil when it succeeded.
    package let lastError: String?
    /// Local additions, changes and deletions not uploaded yet.
    package let pendingChanges: Int
}
