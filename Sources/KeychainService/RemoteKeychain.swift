import Foundation
import KeychainCore

/// A keychain held by `keychaind`: every call is one request to the daemon, which decides the
/// caller's access groups and holds the keys (so the lock state is the same for every client).
public struct RemoteKeychain: KeychainHandle {
    /// The daemon's client.
    public let client: ServiceClient
    public let path: String

    /// A handle on the keychain at `path` served through `client`.
    public init(client: ServiceClient, path: String) {
        self.client = client
        self.path = path
    }

    public func add(_ request: ItemRequest) throws -> ItemResult? {
        guard case .item(let item) = try send(.add(request)) else { throw unexpected("add") }
        return item
    }

    public func search(_ request: ItemRequest) throws -> [ItemResult] {
        guard case .items(let items) = try send(.search(request)) else { throw unexpected("search") }
        return items
    }

    public func update(_ request: ItemRequest, changes: ItemChanges) throws {
        try expectDone(.update(request, changes))
    }

    @discardableResult
    public func delete(_ request: ItemRequest) throws -> Int {
        guard case .count(let count) = try send(.delete(request)) else { throw unexpected("delete") }
        return count
    }

    public func defaultAccessGroup() throws -> String {
        guard case .group(let group) = try send(.defaultAccessGroup) else { throw unexpected("defaultAccessGroup") }
        return group
    }

    public func allItemsWithDamage(includingData: Bool) throws -> (items: [ItemResult], damage: KeychainDamage) {
        guard case .itemsWithDamage(let items, let damage) = try send(.allItems(includingData: includingData)) else {
            throw unexpected("allItems")
        }
        return (items, damage)
    }

    public func status() throws -> KeychainStatus {
        guard case .status(let status) = try send(.status) else { throw unexpected("status") }
        return status
    }

    public func unlock(passcode: Data) throws { try expectDone(.unlock(passcode: passcode)) }

    public func lock() throws { try expectDone(.lock) }

    public func authenticate(passcode: Data, grant: Data?) throws -> Data {
        guard case .grant(let issued) = try send(.authenticate(passcode: passcode, grant: grant)) else {
            throw unexpected("authenticate")
        }
        return issued
    }

    public func authenticateBiometry(reason: String, grant: Data?) throws -> Data {
        guard case .grant(let issued) = try send(.authenticateBiometry(reason: reason, grant: grant)) else {
            throw unexpected("authenticateBiometry")
        }
        return issued
    }

    /// Through keychaind, a cancel shuts the request's own connection down: the daemon stops its
    /// reader at once (the device is released) and issues no grant.
    public func authenticateBiometry(reason: String, grant: Data?, cancellation: (any BiometricCancellation)?) throws -> Data {
        guard let cancellation else { return try authenticateBiometry(reason: reason, grant: grant) }
        let request = ServiceRequest(keychainPath: path, operation: .authenticateBiometry(reason: reason, grant: grant))
        guard case .grant(let issued) = try client.send(request, withdrawnBy: cancellation) else {
            throw unexpected("authenticateBiometry")
        }
        return issued
    }

    public func revokeAuthentication(grant: Data) throws { try expectDone(.revokeAuthentication(grant: grant)) }

    public func useKey(_ use: KeyUse) throws -> Data {
        guard case .keyOutput(let output) = try send(.useKey(use)) else { throw unexpected("useKey") }
        return output
    }

    public func generateKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult? {
        guard case .item(let item) = try send(.generateKey(request, type: type, bits: bits)) else { throw unexpected("generateKey") }
        return item
    }

    public func generateEphemeralKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult {
        guard case .item(let item?) = try send(.generateEphemeralKey(request, type: type, bits: bits)) else {
            throw unexpected("generateEphemeralKey")
        }
        return item
    }

    public func forgetEphemeralKey(_ handle: Data) throws {
        guard case .done = try send(.forgetEphemeralKey(handle: handle)) else { throw unexpected("forgetEphemeralKey") }
    }

    @discardableResult
    public func changePasscode(from old: Data?, to new: Data?) throws -> Int {
        guard case .count(let count) = try send(.changePasscode(old: old, new: new)) else { throw unexpected("changePasscode") }
        return count
    }

    public func settings() throws -> KeychainSettings {
        guard case .settings(let settings) = try send(.settings) else { throw unexpected("settings") }
        return settings
    }

    public func updateSettings(_ settings: KeychainSettings) throws { try expectDone(.updateSettings(settings)) }

    public func backup(to path: String, password: Data) throws -> BackupSummary {
        let request = ServiceOperation.backup(path: Self.absolute(path), password: password)
        guard case .backup(let summary) = try send(request) else { throw unexpected("backup") }
        return summary
    }

    public func restore(from path: String, password: Data) throws -> RestoreSummary {
        let request = ServiceOperation.restore(path: Self.absolute(path), password: password)
        guard case .restore(let summary) = try send(request) else { throw unexpected("restore") }
        return summary
    }

    /// Registers a program with entitlements (the keychain owner's administration tool only).
    public func registerProgram(executablePath: String, entitlements: Data) throws {
        try expectDone(.registerProgram(executablePath: executablePath, entitlements: entitlements))
    }

    /// The registered programs.
    public func registeredPrograms() throws -> [RegisteredProgram] {
        guard case .programs(let programs) = try send(.registeredPrograms) else { throw unexpected("registeredPrograms") }
        return programs
    }

    /// Removes a program's registration.
    public func removeProgram(executablePath: String) throws {
        try expectDone(.removeProgram(executablePath: executablePath))
    }

    /// `path` against this process's working directory: the daemon has its own.
    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        return (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    }

    func send(_ operation: ServiceOperation) throws -> ServiceResponse {
        try client.send(ServiceRequest(keychainPath: path, operation: operation))
    }

    /// Sends `operation`, which answers `.done`.
    func expectDone(_ operation: ServiceOperation) throws {
        guard case .done = try send(operation) else { throw unexpected("a request") }
    }

    private func unexpected(_ operation: String) -> KeychainError {
        KeychainError(.internal, "keychaind answered \(operation) with a response of the wrong kind")
    }
}
