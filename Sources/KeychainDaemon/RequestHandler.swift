import Foundation
import KeychainCore
import KeychainService
import KeychainSync

/// Carries out one request for one caller against the engine, and turns the outcome into a
/// response. Every engine error becomes `.failure` with the same code the caller would have
/// seen in-process.
struct RequestHandler: Sendable {
    /// The default keychain's path in the daemon's environment (the only one a sandboxed caller
    /// may use).
    let defaultKeychainPath: String
    /// Decides each caller's groups from its credentials, at every request (a registration or
    /// an executable may have changed since the last one).
    let policy: CallerPolicy
    /// The keychains held, and the files they were found in.
    let held = HeldKeychains()
    /// System mode: the only directory whose keychains (and backups) this connection's user may
    /// name; nil in user mode, where the files are the user's own anyway.
    var confinement: UserKeychainDirectory? = nil
    /// System mode: the reader that verifies this connection's user's fingers (fprintd, for that
    /// user); nil in user mode, where the process's reader is the user's already.
    var biometrics: (any BiometricVerifier)? = nil
    /// Syncs the keychains that sync, told of each open and each item change; nil when the
    /// daemon does not sync in the background (system mode, or turned off).
    var backgroundSync: BackgroundSync? = nil

    /// Carries out `request` for `caller`; `withdrawal`, when given, withdraws a request that
    /// waits for the user (a fingerprint verification) from another thread: the client left.
    /// `interim` sends the client the responses that come before the final one (a sync's progress).
    func handle(
        _ request: ServiceRequest, for caller: PeerCredentials, cache: CallerCache = CallerCache(),
        withdrawal: (any BiometricCancellation)? = nil, interim: ((ServiceResponse) -> Void)? = nil
    ) -> ServiceResponse {
        do {
            return try perform(request, for: caller, cache: cache, withdrawal: withdrawal, interim: interim)
        } catch let error as KeychainError {
            return .failure(error)
        } catch {
            return .failure(KeychainError(.internal, "the request failed unexpectedly"))
        }
    }

    private func perform(
        _ request: ServiceRequest, for peer: PeerCredentials, cache: CallerCache, withdrawal: (any BiometricCancellation)?,
        interim: ((ServiceResponse) -> Void)?
    ) throws -> ServiceResponse {
        let path = request.keychainPath
        guard path.hasPrefix("/") else { throw KeychainError(.param, "the keychain path must be absolute") }
        try confinement?.requireInside(path)
        // The registry of the keychain named decides a registered program's groups; a keychain
        // not open yet (being created or opened) has none to offer.
        // The process that connected must still be the one at this pid (a kept answer must not
        // pass to a process that took its pid over).
        try peer.requireStillRunning()
        let caller = try cache.access(pid: peer.pid, path: path) {
            try policy.access(for: peer) {
                guard Keychain.isOpen(path: path) else { return [] }
                return try open(path).registeredPrograms()
            }
        }
        if case .sandboxed = caller.standing, path != defaultKeychainPath {
            throw KeychainError(.missingEntitlement, "a sandboxed program may use only the default keychain")
        }
        switch request.operation {
        case .open(let create):
            _ = try held.openForClient(path: path, create: create)
            backgroundSync?.keychainOpened(path: path)
            return .done
        case .create(let passcode):
            _ = try held.changingKeybag(of: path) { try Keychain.create(path: path, passcode: passcode) }
            return .done
        case .deleteKeychain:
            try requireAdministrator(caller)
            try Keychain.delete(path: path)
            held.forget(path)
            return .done
        case .registerProgram(let executable, let entitlements):
            try requireAdministrator(caller)
            try confinement?.requireOutsideState(executable)
            let program = try RegisteredProgram(executablePath: executable, entitlementsFile: entitlements) { file in
                try ExecutableIdentity.of(file: file, digests: policy.digests).digest
            }
            try open(path).registerProgram(program)
            return .done
        case .registeredPrograms:
            try requireAdministrator(caller)
            return .programs(try open(path).registeredPrograms())
        case .removeProgram(let executable):
            try requireAdministrator(caller)
            try open(path).removeProgram(executablePath: executable)
            return .done
        case .syncNow:
            try requireSyncCaller(caller)
            let keychain = EmbeddedKeychain(try open(path), context: DaemonSync.context)
            return try DaemonSync.respondToSyncNow(keychain) { applied, total in
                interim?(.syncProgress(applied: applied, total: total))
            }
        case .syncStatus:
            try requireSyncCaller(caller)
            return try DaemonSync.respondToStatus(EmbeddedKeychain(try open(path), context: DaemonSync.context))
        default:
            // Grants the keychain issues serve only the process that obtained them.
            var context = caller.context
            context.peer = peer.grantOwner
            return try perform(
                request.operation, on: EmbeddedKeychain(try open(path), context: context), caller: caller, withdrawal: withdrawal)
        }
    }

    private func perform(
        _ operation: ServiceOperation, on keychain: EmbeddedKeychain, caller: CallerAccess, withdrawal: (any BiometricCancellation)?
    ) throws -> ServiceResponse {
        // A peer's typed request passed only the wire codec's structural checks: the engine's own
        // checks come before the engine, as in-process they end the dictionary decoder.
        switch operation {
        case .add(let request):
            try request.validate(for: .add)
            let result = try keychain.add(request)
            changed(keychain.path, by: request)
            return .item(result)
        case .search(let request):
            try request.validate(for: .copyMatching)
            return .items(try keychain.search(request))
        case .update(let request, let changes):
            try request.validate(for: .update)
            try changes.validate(for: request.itemClass)
            try keychain.update(request, changes: changes)
            changed(keychain.path, by: request)
            return .done
        case .delete(let request):
            try request.validate(for: .delete)
            let count = try keychain.delete(request)
            changed(keychain.path, by: request)
            return .count(count)
        case .defaultAccessGroup: return .group(try keychain.defaultAccessGroup())
        case .allItems(let includingData):
            let (items, damage) = try keychain.allItemsWithDamage(includingData: includingData)
            return .itemsWithDamage(items, damage)
        case .status:
            var status = try keychain.status()
            status.daemonProcess = getpid()
            return .status(status)
        case .unlock(let passcode):
            try held.changingKeybag(of: keychain.path) { try keychain.unlock(passcode: passcode) }
            return .done
        case .lock:
            try keychain.lock()
            return .done
        case .authenticate(let passcode, let grant):
            return .grant(try held.changingKeybag(of: keychain.path) { try keychain.authenticate(passcode: passcode, grant: grant) })
        case .authenticateBiometry(let reason, let grant):
            let issued = try keychain.authenticateBiometry(reason: reason, grant: grant, cancellation: withdrawal)
            guard withdrawal?.isCancelled != true else {
                // The finger matched as the client left: nobody can use the grant.
                try? keychain.revokeAuthentication(grant: issued)
                throw BiometricOutcome.cancelledError
            }
            return .grant(issued)
        case .revokeAuthentication(let grant):
            try keychain.revokeAuthentication(grant: grant)
            return .done
        case .useKey(let use):
            return .keyOutput(try keychain.useKey(use))
        case .generateKey(let request, let type, let bits):
            try request.validateForGeneration()
            return .item(try keychain.generateKey(request, type: type, bits: bits))
        case .generateEphemeralKey(let request, let type, let bits):
            // Keys of clients that have exited go first, so they never count against the bound.
            keychain.keychain.forgetEphemeralKeys { owner in owner.map { PeerCredentials.hasEnded(grantOwner: $0) } ?? false }
            return .item(try keychain.generateEphemeralKey(request, type: type, bits: bits))
        case .forgetEphemeralKey(let handle):
            try keychain.forgetEphemeralKey(handle)
            return .done
        case .changePasscode(let old, let new):
            return .count(try held.changingKeybag(of: keychain.path) { try keychain.changePasscode(from: old, to: new) })
        case .settings: return .settings(try keychain.settings())
        case .updateSettings(let settings):
            try held.changingKeybag(of: keychain.path) { try keychain.updateSettings(settings) }
            return .done
        case .backup(let path, let password):
            try requireAdministrator(caller)
            try confinement?.requireInside(path)
            return .backup(try keychain.backup(to: path, password: password))
        case .restore(let path, let password):
            try requireAdministrator(caller)
            try confinement?.requireInside(path)
            return .restore(try held.changingKeybag(of: keychain.path) { try keychain.restore(from: path, password: password) })
        case .open, .create, .deleteKeychain, .registerProgram, .registeredPrograms, .removeProgram, .syncNow, .syncStatus:
            throw KeychainError(.internal, "the request was routed to the wrong handler")
        }
    }

    /// Tells background sync that a request changed items of the keychain at `path`.
    private func changed(_ path: String, by request: ItemRequest) {
        backgroundSync?.keychainChanged(path: path, syncState: BackgroundSync.namesSyncState(request))
    }

    /// Locks every keychain the daemon holds, as a `.lock` request locks one (the session locked
    /// or the machine is going to sleep).
    func lockEveryKeychain() {
        for keychain in Keychain.openInstances() { keychain.lock() }
    }

    /// The keychain at `path`, opened once in the daemon (and so unlocked once for everyone).
    private func open(_ path: String) throws -> Keychain {
        let keychain = try Keychain.open(path: path, create: false)
        if let biometrics { keychain.useBiometrics(biometrics) }
        return keychain
    }

    /// Refuses a sync request from a caller not entitled to the sync state's access group, as
    /// reading that state through the item protocol does; the exchange itself runs on the
    /// daemon's keychain with every group, as the background worker's does. A system daemon runs
    /// no sync: it would reach the user's server as its own user (a socket's peer authentication,
    /// its own files named in the connection string), so the caller syncs in its own process.
    private func requireSyncCaller(_ caller: CallerAccess) throws {
        guard confinement == nil else {
            throw KeychainError(.unimplemented, "the system keychain daemon does not run sync; security sync runs it in the calling process")
        }
        try caller.context.requireEntitlement(to: DaemonSync.accessGroup)
    }

    private func requireAdministrator(_ caller: CallerAccess) throws {
        guard caller.isAdministrator else {
            throw KeychainError(.missingEntitlement, "only the keychain owner's security command may do this")
        }
    }
}
