import Foundation

/// A keychain opened in the calling process, used on behalf of one access context.
///
/// This is how a program reaches its keychain where no `keychaind` can run (a container, a CI job,
/// a server process), and how the daemon itself serves each request: the daemon builds one per
/// request, with the context it decided from the caller's credentials.
public struct EmbeddedKeychain: KeychainHandle {
    /// The shared per-process instance.
    public let keychain: Keychain
    /// The caller's access groups.
    public let context: AccessContext

    /// Uses `keychain` on behalf of `context`.
    public init(_ keychain: Keychain, context: AccessContext) {
        self.keychain = keychain
        self.context = context
    }

    public var path: String { keychain.path }

    public func add(_ request: ItemRequest) throws -> ItemResult? {
        try keychain.add(request, context: context)
    }

    public func search(_ request: ItemRequest) throws -> [ItemResult] {
        try keychain.search(request, context: context)
    }

    public func update(_ request: ItemRequest, changes: ItemChanges) throws {
        try keychain.update(request, changes: changes, context: context)
    }

    @discardableResult
    public func delete(_ request: ItemRequest) throws -> Int {
        try keychain.delete(request, context: context)
    }

    public func defaultAccessGroup() throws -> String { try context.defaultGroupForAdd() }

    public func allItemsWithDamage(includingData: Bool) throws -> (items: [ItemResult], damage: KeychainDamage) {
        try keychain.allItemsWithDamage(context: context, includingData: includingData)
    }

    public func status() throws -> KeychainStatus {
        KeychainStatus(
            lockState: keychain.lockState, hasPasscode: keychain.hasPasscode,
            passcodeRetryDelay: try keychain.passcodeRetryDelay, daemonProcess: nil)
    }

    public func unlock(passcode: Data) throws { try keychain.unlock(passcode: passcode) }

    public func lock() throws { keychain.lock() }

    public func authenticate(passcode: Data, grant: Data?) throws -> Data {
        try keychain.authenticate(passcode: passcode, grant: grant, context: context)
    }

    public func authenticateBiometry(reason: String, grant: Data?) throws -> Data {
        try keychain.authenticateBiometry(reason: reason, grant: grant, context: context)
    }

    public func authenticateBiometry(reason: String, grant: Data?, cancellation: (any BiometricCancellation)?) throws -> Data {
        try keychain.authenticateBiometry(reason: reason, grant: grant, context: context, cancellation: cancellation)
    }

    public func revokeAuthentication(grant: Data) throws {
        keychain.revokeAuthentication(grant: grant, context: context)
    }

    public func useKey(_ use: KeyUse) throws -> Data {
        Data.zeroingCopy(of: try keychain.useKey(use, context: context))
    }

    public func generateKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult? {
        try keychain.generateKey(request, type: type, bits: bits, context: context)
    }

    public func generateEphemeralKey(_ request: ItemRequest, type: KeyType, bits: Int) throws -> ItemResult {
        try keychain.generateEphemeralKey(request, type: type, bits: bits, context: context)
    }

    public func forgetEphemeralKey(_ handle: Data) throws {
        try keychain.forgetEphemeralKey(handle, context: context)
    }

    @discardableResult
    public func changePasscode(from old: Data?, to new: Data?) throws -> Int {
        try keychain.changePasscode(from: old, to: new)
    }

    public func settings() throws -> KeychainSettings { try keychain.settings() }

    public func updateSettings(_ settings: KeychainSettings) throws { try keychain.updateSettings(settings) }

    public func backup(to path: String, password: Data) throws -> BackupSummary {
        try keychain.backup(to: path, password: password)
    }

    public func restore(from path: String, password: Data) throws -> RestoreSummary {
        try keychain.restore(from: path, password: password)
    }

    public func registerProgram(executablePath: String, entitlements: Data) throws {
        try keychain.registerProgram(try RegisteredProgram(executablePath: executablePath, entitlementsFile: entitlements))
    }

    public func registeredPrograms() throws -> [RegisteredProgram] { try keychain.registeredPrograms() }

    public func removeProgram(executablePath: String) throws { try keychain.removeProgram(executablePath: executablePath) }
}
