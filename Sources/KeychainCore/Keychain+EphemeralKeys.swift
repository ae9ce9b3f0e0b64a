import Foundation
import KeychainCrypto

/// Private keys the keychain holds without storing them (`EphemeralHeldKeys`): a key generated
/// without `kSecAttrIsPermanent` whose access control has user constraints is made here (a
/// token key in the keychain's TPM) and kept in memory, and its maker gets a reference whose
/// handle is not a persistent reference. Every use goes through `useKey`, which checks the key's
/// access control exactly as for a stored key, as Apple's Secure Enclave checks it on every use
/// of such a key. The key is never written, never found by a search, never dumped, backed up or
/// synchronized.
extension Keychain {
    /// Generates a private key of `type` and `bits` (in the TPM when the request's token ID is
    /// the Secure Enclave's) and keeps it in memory for the caller `context` names, with the
    /// attributes and access control `request` gives, as an add would record them.
    ///
    /// - Returns: a result whose reference is the key's (`AsymmetricKey.isHeldByKeychain`, with
    ///   a handle `EphemeralHeldKeys.isHandle` recognizes); no persistent reference.
    /// - Throws: `errSecParam` for a request `validateForGeneration` refuses, or whose access
    ///   control has no user constraint or has `.applicationPassword` (a key kept in memory is
    ///   not sealed under a password); `errSecMissingEntitlement` for an access group the caller
    ///   lacks; `errSecAuthFailed` for a passcode-only key while no passcode is set;
    ///   `errSecAllocate` when the caller already holds
    ///   `EphemeralHeldKeys.capacityPerOwner` such keys; the generator's errors.
    public func generateEphemeralKey(_ request: ItemRequest, type: KeyType, bits: Int, context: AccessContext) throws -> ItemResult {
        try request.validateForGeneration()
        guard let policy = request.accessControl, !policy.userConstraints.isEmpty, !policy.flags.contains(.applicationPassword) else {
            throw KeychainError.param("a key kept only in memory needs access control with user constraints and no application password")
        }
        var attributes = request.attributes.filter { $0.key.maintainer == .caller }
        if let group = attributes[.accessGroup]?.stringValue {
            try context.requireEntitlement(to: group)
        } else {
            attributes[.accessGroup] = .string(try context.defaultGroupForAdd())
        }
        attributes[.accessible] = .string(policy.protection.rawValue)
        if policy.protection == .whenPasscodeSetThisDeviceOnly && !keyRing.hasPasscode {
            throw KeychainError(.authFailed, "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly needs a passcode, and none is set")
        }
        let key = request.attributes[.tokenID] == .string(AsymmetricKey.secureEnclaveTokenID)
            ? try AsymmetricKey.generateInHardware(type: type, bits: bits)
            : try AsymmetricKey.generate(type: type, bits: bits)
        attributes = key.itemAttributes.merging(attributes)
        attributes[.type] = .integer(type.rawValue)
        attributes[.keyClass] = .integer(KeyClass.private.rawValue)
        let record = ItemRecord(
            rowID: 0, itemClass: .key, uuid: Data(), attributes: attributes,
            accessControl: try currentBiometricBinding(for: policy))
        var secret = Data.zeroingCopy(of: try key.storedRepresentation())
        defer { secret.wipe() }
        let handle = try ephemeralKeys.insert(record: record, secret: secret, owner: context.peer)
        var result = ItemResult(itemClass: .key)
        result.reference = .key(try AsymmetricKey.heldByKeychain(item: handle, publicHalf: key))
        return result
    }

    /// `useKey` for a key kept in memory: the key must be the caller's, its protection class
    /// available (as a stored key's must be to open its row), and its access control is checked
    /// as a stored key's.
    ///
    /// - Throws: `errSecItemNotFound` when no key of the caller's has this handle (it was
    ///   forgotten, or another caller made it); `errSecInteractionNotAllowed` while its class is
    ///   locked; otherwise as `useKey`.
    func useEphemeralKey(_ use: KeyUse, context: AccessContext) throws -> SecureBytes {
        guard let entry = ephemeralKeys.entry(use.item, owner: context.peer) else {
            throw KeychainError(.itemNotFound, "the key is not in the keychain")
        }
        _ = try keyRing.classKeys(for: KeybagClass(entry.record.protection))
        try requireAccess(for: use, to: entry.record, context: context)
        return try perform(use.operation, withKeyOf: entry.record, secret: SecureBytes(copying: entry.secret))
    }

    /// Forgets the key kept in memory that `handle` names, when it is the caller's (its
    /// `SecKey` was released).
    ///
    /// - Throws: `errSecParam` for a handle that is not such a key's; `errSecItemNotFound` when
    ///   the caller has no key with this handle.
    public func forgetEphemeralKey(_ handle: Data, context: AccessContext) throws {
        guard EphemeralHeldKeys.isHandle(handle) else { throw KeychainError.param("the handle names no key kept in memory") }
        guard ephemeralKeys.remove(handle, owner: context.peer) else {
            throw KeychainError(.itemNotFound, "the key is not in the keychain")
        }
    }

    /// Forgets the keys kept in memory of every caller `gone` says has ended.
    public func forgetEphemeralKeys(ofOwnersWhere gone: (String?) -> Bool) {
        ephemeralKeys.removeOwners(where: gone)
    }
}

extension AsymmetricKey {
    /// Whether this key is a reference to a private key the keychain keeps in memory only
    /// (`Keychain.generateEphemeralKey`), not to a stored item.
    public var isKeptInKeychainMemory: Bool { keychainItemReference.map(EphemeralHeldKeys.isHandle) ?? false }
}
