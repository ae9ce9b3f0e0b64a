import Foundation
import KeychainCore
import KeychainService

/// Carries out one request for one caller against the engine, and turns the outcome into a
/// response. Every engine error becomes `.failure` with the same code the caller would have
/// seen in-process.
struct RequestHandler: Sendable {
    /// The default keychain's path in the daemon's environment (the only one a sandboxed caller
    /// may use).
    let defaultKeychainPath: String
    /// The registry of programs, looked up and changed through the keychain the request names.
    let programs: ProgramRegistry

    func handle(_ request: ServiceRequest, for caller: Caller) -> ServiceResponse {
        do {
            return try perform(request, for: caller)
        } catch let error as KeychainError {
            return .failure(error)
        } catch {
            return .failure(KeychainError(.internal, "the request failed unexpectedly"))
        }
    }

    private func perform(_ request: ServiceRequest, for caller: Caller) throws -> ServiceResponse {
        let path = request.keychainPath
        guard path.hasPrefix("/") else { throw KeychainError(.param, "the keychain path must be absolute") }
        if caller.isSandboxed && path != defaultKeychainPath {
            throw KeychainError(.missingEntitlement, "a sandboxed program may use only the default keychain")
        }
        switch request.operation {
        case .open(let create):
            _ = try Keychain.open(path: path, create: create)
            return .done
        case .create(let passcode):
            _ = try Keychain.create(path: path, passcode: passcode)
            return .done
        case .deleteKeychain:
            try requireAdministrator(caller)
            try Keychain.delete(path: path)
            return .done
        case .registerProgram(let executable, let entitlements):
            try requireAdministrator(caller)
            try programs.register(executablePath: executable, entitlements: entitlements, in: try open(path))
            return .done
        case .registeredPrograms:
            try requireAdministrator(caller)
            return .programs(try open(path).registeredPrograms())
        case .removeProgram(let executable):
            try requireAdministrator(caller)
            try open(path).removeProgram(executablePath: executable)
            return .done
        default:
            return try perform(request.operation, on: EmbeddedKeychain(try open(path), context: try context(of: caller, in: path)), caller: caller)
        }
    }

    private func perform(_ operation: ServiceOperation, on keychain: EmbeddedKeychain, caller: Caller) throws -> ServiceResponse {
        // A peer's typed request passed only the wire codec's structural checks: the engine's own
        // checks come before the engine, as in-process they end the dictionary decoder.
        switch operation {
        case .add(let request):
            try request.validate(for: .add)
            return .item(try keychain.add(request))
        case .search(let request):
            try request.validate(for: .copyMatching)
            return .items(try keychain.search(request))
        case .update(let request, let changes):
            try request.validate(for: .update)
            try changes.validate(for: request.itemClass)
            try keychain.update(request, changes: changes)
            return .done
        case .delete(let request):
            try request.validate(for: .delete)
            return .count(try keychain.delete(request))
        case .defaultAccessGroup: return .group(try keychain.defaultAccessGroup())
        case .allItems(let includingData):
            let (items, damage) = try keychain.allItemsWithDamage(includingData: includingData)
            return .itemsWithDamage(items, damage)
        case .status:
            var status = try keychain.status()
            status.daemonProcess = getpid()
            return .status(status)
        case .unlock(let passcode):
            try keychain.unlock(passcode: passcode)
            return .done
        case .lock:
            try keychain.lock()
            return .done
        case .changePasscode(let old, let new):
            return .count(try keychain.changePasscode(from: old, to: new))
        case .settings: return .settings(try keychain.settings())
        case .updateSettings(let settings):
            try keychain.updateSettings(settings)
            return .done
        case .backup(let path, let password):
            try requireAdministrator(caller)
            return .backup(try keychain.backup(to: path, password: password))
        case .restore(let path, let password):
            try requireAdministrator(caller)
            return .restore(try keychain.restore(from: path, password: password))
        case .open, .create, .deleteKeychain, .registerProgram, .registeredPrograms, .removeProgram:
            throw KeychainError(.internal, "the request was routed to the wrong handler")
        }
    }

    /// The keychain at `path`, opened once in the daemon (and so unlocked once for everyone).
    private func open(_ path: String) throws -> Keychain {
        try Keychain.open(path: path, create: false)
    }

    /// The caller's groups in the keychain at `path`: a registered program's, else what the
    /// connection's credentials gave.
    private func context(of caller: Caller, in path: String) throws -> AccessContext {
        try programs.context(for: caller, in: open(path))
    }

    private func requireAdministrator(_ caller: Caller) throws {
        guard caller.isAdministrator else {
            throw KeychainError(.missingEntitlement, "only the keychain owner's security command may do this")
        }
    }
}
