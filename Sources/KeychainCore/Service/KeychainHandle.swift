import Foundation
import Synchronization

/// An open keychain as a client uses it: the four item operations, the lock, the passcode and
/// the settings, on behalf of one caller whose access groups are already decided.
///
/// Two kinds exist: `EmbeddedKeychain`, the keychain opened in this process (the caller's groups
/// come from its entitlements file), and the daemon's client, where `keychaind` holds the keys
/// and decides the caller's groups from its peer credentials. Both answer every call with the
/// same results and the same `KeychainError`s, so the `Security` surface and the `security`
/// command are written once, against this protocol.
public protocol KeychainHandle: Sendable {
    /// The keychain's database path.
    var path: String { get }

    /// Adds an item (`SecItemAdd`); returns what the request's `returns` ask for.
    func add(_ request: ItemRequest) throws -> ItemResult?
    /// Finds items (`SecItemCopyMatching`), at most `request.matchLimit` of them.
    func search(_ request: ItemRequest) throws -> [ItemResult]
    /// Changes every item the request matches, all or none (`SecItemUpdate`).
    func update(_ request: ItemRequest, changes: ItemChanges) throws
    /// Deletes every item the request matches (`SecItemDelete`); returns how many.
    @discardableResult
    func delete(_ request: ItemRequest) throws -> Int
    /// The access group the caller's adds go to when they name none.
    func defaultAccessGroup() throws -> String
    /// Every item the caller may see, with what could not be read (`security dump-keychain`).
    func allItemsWithDamage(includingData: Bool) throws -> (items: [ItemResult], damage: KeychainDamage)

    /// The lock state, whether a passcode is set, the passcode delay, and who holds the keys.
    func status() throws -> KeychainStatus
    /// Unlocks with the passcode (a wrong one counts towards the delays).
    func unlock(passcode: Data) throws
    /// Locks: class A keys are dropped for every client of this keychain.
    func lock() throws
    /// Checks the passcode as `unlock` does (counted, and unlocking) and records it in a grant
    /// for this caller (`grant`, or a new one); returns the grant's identifier, which requests
    /// bring in `ItemRequest.authentication` to read secrets access control guards.
    func authenticate(passcode: Data, grant: Data?) throws -> Data
    /// Has the keychain verify the user's biometry and record it in a grant (`grant`, or a new
    /// one); returns the grant's identifier.
    func authenticateBiometry(reason: String, grant: Data?) throws -> Data
    /// `authenticateBiometry(reason:grant:)`, withdrawn by `cancellation` from another thread: a
    /// keychain in this process stops its reader; one in another process stops being waited for.
    func authenticateBiometry(reason: String, grant: Data?, cancellation: (any BiometricCancellation)?) throws -> Data
    /// Forgets a grant.
    func revokeAuthentication(grant: Data) throws
    /// Signs, decrypts, derives or exports with a private key the keychain holds
    /// (`AsymmetricKey.isHeldByKeychain`), once the key's access control is satisfied by the
    /// grant `use` brings (`.authenticationNeeded` when it is not); returns the output only.
    func useKey(_ use: KeyUse) throws -> Data
    /// Generates a private key of `type` and `bits` in the keychain and adds it as the key item
    /// `request` describes (`SecKeyCreateRandomKey` for a key the keychain holds); returns what
    /// `request.returns` asks for.
    func generateKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult?
    /// Generates a private key of `type` and `bits` that the keychain keeps in memory only, for
    /// this caller, with the attributes and access control of the key item `request` describes
    /// (`SecKeyCreateRandomKey` without `kSecAttrIsPermanent` for a token key with constraints);
    /// returns its reference, used through `useKey`.
    func generateEphemeralKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult
    /// Forgets a key `generateEphemeralKey` made (its `SecKey` was released).
    func forgetEphemeralKey(_ handle: Data) throws
    /// Sets, changes or removes the passcode; returns how many items were sealed again.
    @discardableResult
    func changePasscode(from old: Data?, to new: Data?) throws -> Int
    /// The lock settings.
    func settings() throws -> KeychainSettings
    /// Stores new lock settings; an auto-lock interval applies at once.
    func updateSettings(_ settings: KeychainSettings) throws
    /// Writes an encrypted backup of every item to `path`.
    func backup(to path: String, password: Data) throws -> BackupSummary
    /// Restores the items of the backup at `path`.
    func restore(from path: String, password: Data) throws -> RestoreSummary

    /// Registers the executable at `executablePath` (pinned to its current content) with the
    /// entitlements property list `entitlements`: through `keychaind`, that program then gets the
    /// entitlements' access groups. Only the owner's administration tool may.
    func registerProgram(executablePath: String, entitlements: Data) throws
    /// The registered programs.
    func registeredPrograms() throws -> [RegisteredProgram]
    /// Removes the registration of the executable at `executablePath`.
    func removeProgram(executablePath: String) throws
}

extension KeychainHandle {
    /// For a handle that cannot withdraw the call itself: the call runs on a thread of its own
    /// and a cancel ends the wait for it at once (`errSecUserCanceled`); the verification goes on
    /// until the reader ends it, and a grant it then issues is revoked. (`RemoteKeychain` does
    /// withdraw it: keychaind stops its reader when the request's connection is shut down.)
    public func authenticateBiometry(reason: String, grant: Data?, cancellation: (any BiometricCancellation)?) throws -> Data {
        guard let cancellation else { return try authenticateBiometry(reason: reason, grant: grant) }
        let call = AbandonableCall()
        let handle = self
        Thread.detachNewThread {
            let result = Result { try handle.authenticateBiometry(reason: reason, grant: grant) }
            if !call.finish(result), case .success(let issued) = result { try? handle.revokeAuthentication(grant: issued) }
        }
        cancellation.onCancel { call.abandon() }
        defer { cancellation.removeCancelAction() }
        guard let result = call.wait() else { throw BiometricOutcome.cancelledError }
        return try result.get()
    }
}

/// A call another thread makes, which its caller may stop waiting for: whichever comes first,
/// the call's result or the abandonment, decides what the caller sees.
private final class AbandonableCall: Sendable {
    private enum State {
        case waiting
        case finished(Result<Data, any Error>)
        case abandoned
    }

    private let state = Mutex(State.waiting)
    private let settled = DispatchSemaphore(value: 0)

    /// Hands over the call's result; false when the caller already stopped waiting.
    func finish(_ result: Result<Data, any Error>) -> Bool {
        let taken = state.withLock { current -> Bool in
            guard case .waiting = current else { return false }
            current = .finished(result)
            return true
        }
        if taken { settled.signal() }
        return taken
    }

    /// Stops the caller's wait (when the result has not come yet).
    func abandon() {
        let taken = state.withLock { current -> Bool in
            guard case .waiting = current else { return false }
            current = .abandoned
            return true
        }
        if taken { settled.signal() }
    }

    /// The call's result, or nil when the wait was abandoned.
    func wait() -> Result<Data, any Error>? {
        settled.wait()
        return state.withLock { current in
            if case .finished(let result) = current { return result }
            return nil
        }
    }
}
