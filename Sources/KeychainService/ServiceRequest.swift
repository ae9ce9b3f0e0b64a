import Foundation
import KeychainCore

/// One request a client sends `keychaind`: an operation on the keychain at a path.
///
/// The caller's access groups are not part of it: the daemon decides them from the peer's
/// credentials, so a client cannot claim groups it does not have.
public struct ServiceRequest: Sendable {
    /// The keychain's database path, absolute.
    public var keychainPath: String
    /// What to do.
    public var operation: ServiceOperation

    /// Creates a request.
    public init(keychainPath: String, operation: ServiceOperation) {
        self.keychainPath = keychainPath
        self.operation = operation
    }
}

/// The operations `keychaind` serves: `KeychainHandle`'s calls, opening, creating and deleting
/// keychains, and the owner's registry of programs with entitlements.
public enum ServiceOperation: Sendable {
    /// Opens the keychain (creating it without a passcode when `create` and absent).
    case open(create: Bool)
    /// Creates a new keychain with a passcode (none when nil or empty).
    case create(passcode: Data?)
    /// Deletes the keychain's files.
    case deleteKeychain
    /// `KeychainHandle.add`.
    case add(ItemRequest)
    /// `KeychainHandle.search`.
    case search(ItemRequest)
    /// `KeychainHandle.update`.
    case update(ItemRequest, ItemChanges)
    /// `KeychainHandle.delete`.
    case delete(ItemRequest)
    /// `KeychainHandle.defaultAccessGroup`.
    case defaultAccessGroup
    /// `KeychainHandle.allItemsWithDamage`.
    case allItems(includingData: Bool)
    /// `KeychainHandle.status`.
    case status
    /// `KeychainHandle.unlock`.
    case unlock(passcode: Data)
    /// `KeychainHandle.lock`.
    case lock
    /// `KeychainHandle.changePasscode`.
    case changePasscode(old: Data?, new: Data?)
    /// `KeychainHandle.settings`.
    case settings
    /// `KeychainHandle.updateSettings`.
    case updateSettings(KeychainSettings)
    /// `KeychainHandle.backup`.
    case backup(path: String, password: Data)
    /// `KeychainHandle.restore`.
    case restore(path: String, password: Data)
    /// Registers the executable at the path with the entitlements property list (owner only).
    case registerProgram(executablePath: String, entitlements: Data)
    /// Lists the registered programs (owner only).
    case registeredPrograms
    /// Removes the registration of the executable at the path (owner only).
    case removeProgram(executablePath: String)
    /// `KeychainHandle.authenticate(passcode:grant:)`.
    case authenticate(passcode: Data, grant: Data?)
    /// `KeychainHandle.authenticateBiometry(reason:grant:)`.
    case authenticateBiometry(reason: String, grant: Data?)
    /// `KeychainHandle.revokeAuthentication(grant:)`.
    case revokeAuthentication(grant: Data)
    /// `KeychainHandle.useKey(_:)`.
    case useKey(KeyUse)
    /// `KeychainHandle.generateKey(_:type:bits:)`.
    case generateKey(ItemRequest, type: KeyType, bits: Int)
    /// `KeychainHandle.generateEphemeralKey(_:type:bits:)`.
    case generateEphemeralKey(ItemRequest, type: KeyType, bits: Int)
    /// `KeychainHandle.forgetEphemeralKey(_:)`.
    case forgetEphemeralKey(handle: Data)
    /// Runs one sync exchange of the keychain inside the daemon (`security sync now`), serialised
    /// with its background sync; answers `syncReport` after any `syncProgress`, or `syncFailure`.
    /// Only a caller entitled to the sync state's access group may ask.
    case syncNow
    /// The keychain's sync status as the daemon reads it (`security sync status`); answers
    /// `syncStatus` or `syncFailure`. Only a caller entitled to the sync state's access group may ask.
    case syncStatus
}

/// `keychaind`'s answer to one request.
public enum ServiceResponse: Sendable {
    /// Done, nothing to return.
    case done
    /// An add's result.
    case item(ItemResult?)
    /// A search's results.
    case items([ItemResult])
    /// A count (items deleted, items sealed again).
    case count(Int)
    /// An access group.
    case group(String)
    /// Every item, with what could not be read.
    case itemsWithDamage([ItemResult], KeychainDamage)
    /// The keychain's status.
    case status(KeychainStatus)
    /// The lock settings.
    case settings(KeychainSettings)
    /// A backup's summary.
    case backup(BackupSummary)
    /// A restore's summary.
    case restore(RestoreSummary)
    /// The registered programs.
    case programs([RegisteredProgram])
    /// A grant's identifier (`authenticate`).
    case grant(Data)
    /// A key operation's output (`useKey`): the signature, plaintext, shared secret or exported key.
    case keyOutput(Data)
    /// How far a `syncNow` download has got applying records (`applied` of `total`): sent before
    /// the request's final answer, zero or more times (`isInterim`).
    case syncProgress(applied: Int, total: Int)
    /// What a `syncNow` exchange did.
    case syncReport(SyncExchangeReport)
    /// A `syncStatus` answer.
    case syncStatus(SyncStatusReport)
    /// A sync operation failed: the sync engine's error (the request itself was allowed).
    case syncFailure(SyncFailure)
    /// The request failed: the engine's error, as an embedded call would have thrown it.
    case failure(KeychainError)

    /// Whether the response only reports progress: the request's final answer follows on the
    /// same connection.
    public var isInterim: Bool {
        if case .syncProgress = self { return true }
        return false
    }
}
