import Foundation
import KeychainCore

/// A keychain handle that passes every call to an in-process keychain but is not an
/// `EmbeddedKeychain`: the sync engine sees it as it sees a keychain reached through keychaind,
/// and reads it through the item calls alone (no row versions). With `deleteFailure`, every
/// delete fails with it (a disk error, say) and deletes nothing.
struct ForwardingKeychain: KeychainHandle {
    let inner: EmbeddedKeychain
    var deleteFailure: KeychainError?

    var path: String { inner.path }
    func add(_ request: ItemRequest) throws -> ItemResult? { try inner.add(request) }
    func search(_ request: ItemRequest) throws -> [ItemResult] { try inner.search(request) }
    func update(_ request: ItemRequest, changes: ItemChanges) throws { try inner.update(request, changes: changes) }
    func delete(_ request: ItemRequest) throws -> Int {
        if let deleteFailure { throw deleteFailure }
        return try inner.delete(request)
    }
    func defaultAccessGroup() throws -> String { try inner.defaultAccessGroup() }
    func allItemsWithDamage(includingData: Bool) throws -> (items: [ItemResult], damage: KeychainDamage) {
        try inner.allItemsWithDamage(includingData: includingData)
    }
    func status() throws -> KeychainStatus { try inner.status() }
    func unlock(passcode: Data) throws { try inner.unlock(passcode: passcode) }
    func lock() throws { try inner.lock() }
    func authenticate(passcode: Data, grant: Data?) throws -> Data { try inner.authenticate(passcode: passcode, grant: grant) }
    func authenticateBiometry(reason: String, grant: Data?) throws -> Data { try inner.authenticateBiometry(reason: reason, grant: grant) }
    func revokeAuthentication(grant: Data) throws { try inner.revokeAuthentication(grant: grant) }
    func useKey(_ use: KeyUse) throws -> Data { try inner.useKey(use) }
    func generateKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult? {
        try inner.generateKey(request, type: type, bits: bits)
    }
    func generateEphemeralKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult {
        try inner.generateEphemeralKey(request, type: type, bits: bits)
    }
    func forgetEphemeralKey(_ handle: Data) throws { try inner.forgetEphemeralKey(handle) }
    func changePasscode(from old: Data?, to new: Data?) throws -> Int { try inner.changePasscode(from: old, to: new) }
    func settings() throws -> KeychainSettings { try inner.settings() }
    func updateSettings(_ settings: KeychainSettings) throws { try inner.updateSettings(settings) }
    func backup(to path: String, password: Data) throws -> BackupSummary { try inner.backup(to: path, password: password) }
    func restore(from path: String, password: Data) throws -> RestoreSummary { try inner.restore(from: path, password: password) }
    func registerProgram(executablePath: String, entitlements: Data) throws {
        try inner.registerProgram(executablePath: executablePath, entitlements: entitlements)
    }
    func registeredPrograms() throws -> [RegisteredProgram] { try inner.registeredPrograms() }
    func removeProgram(executablePath: String) throws { try inner.removeProgram(executablePath: executablePath) }
}
