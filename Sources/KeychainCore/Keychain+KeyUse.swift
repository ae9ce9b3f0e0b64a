import Foundation
import KeychainCrypto

/// Private keys the keychain holds: a stored private key whose access control has constraints or
/// `.applicationPassword` is returned as a reference (`AsymmetricKey.isHeldByKeychain`) and used
/// here. With `.privateKeyUsage` the constraint guards signing, decryption and key exchange;
/// without it, only export of the key (its external representation, the item's data). Either way
/// export needs the constraint, since the exported key would give every use. Public-key
/// operations, reading attributes and deleting never need it. A key with `.applicationPassword`
/// is stored sealed under a key derived from that password (as password items are): every use,
/// and even making its reference (which needs its public key), needs the password, since without
/// it the keychain itself cannot open the key.
extension Keychain {
    /// Whether the keychain keeps `record`'s private key to itself: a private key item whose
    /// access control has constraints the user satisfies or an application password.
    static func holdsPrivateKey(_ record: ItemRecord) -> Bool {
        record.itemClass == .key && record.attributes[.keyClass] == .integer(KeyClass.private.rawValue)
            && record.accessControl?.guardsSecret == true
    }

    /// The `SecKey` or `SecCertificate` `record`'s data holds, as `reference` builds it; a private
    /// key the keychain holds becomes a reference to its item, with the public key only.
    func reference(of record: ItemRecord, secret: Data?) -> ItemReference? {
        let made = reference(itemClass: record.itemClass, attributes: record.attributes, secret: secret)
        guard Self.holdsPrivateKey(record), case .key(let key)? = made else { return made }
        return (try? AsymmetricKey.heldByKeychain(item: record.persistentReference.data, publicHalf: key)).map(ItemReference.key)
    }

    /// Runs `use` with the private key of the item it names, once the key's access control is
    /// satisfied (for export always, for a use only with `.privateKeyUsage`).
    ///
    /// - Returns: the signature, plaintext, shared secret or external representation, in a
    ///   buffer zeroed when released.
    /// - Throws: `errSecParam` when the reference names no private key; `errSecUnimplemented`
    ///   for the export of a token key (its private key never leaves the TPM), before any
    ///   authentication; `errSecItemNotFound`
    ///   when the item is gone or the caller may not see it; `errSecInteractionNotAllowed` when
    ///   authentication is needed and `use.authenticationUI` is `.fail` (`.skip` acts as `.fail`);
    ///   `errSecAuthFailed` when nothing the user could do satisfies the constraint;
    ///   `.authenticationNeeded` with the key's flags when the grant does not satisfy it; the
    ///   operation's own errors (`errSecParam` for an unsupported algorithm).
    public func useKey(_ use: KeyUse, context: AccessContext) throws -> SecureBytes {
        if EphemeralHeldKeys.isHandle(use.item) { return try useEphemeralKey(use, context: context) }
        let reference = try PersistentReference(data: use.item)
        guard reference.itemClass == .key else { throw KeychainError.param("the key reference names no key item") }
        var request = ItemRequest(itemClass: .key)
        request.persistentReference = reference
        try checkSearchEntitlements(request, context: context)
        return try reading { tx in
            var output: SecureBytes?
            try forEachMatch(request, context: context, in: tx) { record, row in
                try requireAccess(for: use, to: record, context: context)
                guard let blob = row.secret, let opened = try passwordGuardedSecret(blob, of: row, record: record, use: use) else {
                    throw KeychainError(.decode, "the key's item failed authentication")
                }
                output = try perform(use.operation, withKeyOf: record, secret: opened)
                return false
            }
            guard let output else { throw KeychainError(.itemNotFound, "the key's item is not in the keychain") }
            return output
        }
    }

    /// Refuses `use` of `record`'s key unless it names a private key whose access control is
    /// satisfied (for export always, for a use only with `.privateKeyUsage`); a token key's
    /// export is refused before anyone is asked.
    func requireAccess(for use: KeyUse, to record: ItemRecord, context: AccessContext) throws {
        guard record.attributes[.keyClass] == .integer(KeyClass.private.rawValue) else {
            throw KeychainError.param("the key reference names no private key")
        }
        if case .export = use.operation, record.attributes[.tokenID] == .string(AsymmetricKey.secureEnclaveTokenID) {
            // Nothing the user could do would export it: refused before anyone is asked.
            throw AsymmetricKey.tokenExportRefusal
        }
        if let policy = record.accessControl, !use.operation.isUse || policy.flags.contains(.privateKeyUsage) {
            let ui: AuthenticationUI = use.authenticationUI == .allow ? .allow : .fail
            guard try mayReadSecret(of: record, authentication: use.authentication, ui: ui, context: context) else {
                throw KeychainError(.interactionNotAllowed, "the key needs authentication and interaction is not allowed")
            }
        }
    }

    /// The result of `operation` with the private key `record`'s data `opened` holds.
    func perform(_ operation: KeyUse.Operation, withKeyOf record: ItemRecord, secret opened: SecureBytes) throws -> SecureBytes {
        var secret = Data.zeroingCopy(of: opened)
        defer { secret.wipe() }
        guard case .key(let key)? = self.reference(itemClass: .key, attributes: record.attributes, secret: secret) else {
            throw KeychainError(.decode, "the key's item holds no key")
        }
        return try Self.perform(operation, with: key)
    }

    /// The key's data for `use`: a key sealed under its application password opens with the
    /// password `use` brings (`errSecAuthFailed` when wrong); without one, `use` is refused
    /// (`errSecInteractionNotAllowed` when it may not ask, else `.authenticationNeeded` for the
    /// password alone).
    private func passwordGuardedSecret(_ blob: Data, of row: StoredRow, record: ItemRecord, use: KeyUse) throws -> SecureBytes? {
        guard KeychainStore.isPasswordSealed(blob), use.authentication.applicationPassword == nil else {
            return try guardedSecretBytes(blob, of: row, record: record, password: use.authentication.applicationPassword)
        }
        if use.authenticationUI != .allow {
            throw KeychainError(.interactionNotAllowed, "the key needs its application password and interaction is not allowed")
        }
        throw KeychainError(authenticationNeededFor: .applicationPassword)
    }

    /// Generates a private key of `type` and `bits` inside the keychain and adds it as `request`
    /// describes, so the private key never exists outside the keychain (`SecKeyCreateRandomKey`
    /// for a permanent key whose access control has constraints). A request whose token ID is the
    /// Secure Enclave's (`AsymmetricKey.secureEnclaveTokenID`) has the key made inside the
    /// keychain's TPM (`AsymmetricKey.generateInHardware`) and stores its wrapped blob; any other
    /// request gets a software key (`AsymmetricKey.generate`). The request's attributes win over
    /// the key's own, except its type and class.
    ///
    /// - Returns: the add's result (`request.returns`): its reference is the stored key's.
    /// - Throws: `errSecParam` for a request that is not a key item without data, or that names
    ///   another token; the errors of `AsymmetricKey.generate`, `generateInHardware` (the keychain
    ///   has no TPM: `errSecNotAvailable`) and `add`.
    public func generateKey(_ request: ItemRequest, type: KeyType, bits: Int, context: AccessContext) throws -> ItemResult? {
        try request.validateForGeneration()
        let key = request.attributes[.tokenID] == .string(AsymmetricKey.secureEnclaveTokenID)
            ? try AsymmetricKey.generateInHardware(type: type, bits: bits)
            : try AsymmetricKey.generate(type: type, bits: bits)
        var request = request
        request.attributes = key.itemAttributes.merging(request.attributes)
        request.attributes[.type] = .integer(type.rawValue)
        request.attributes[.keyClass] = .integer(KeyClass.private.rawValue)
        request.secret = Data.zeroingCopy(of: try key.storedRepresentation())
        defer { request.secret?.wipe() }
        return try add(request, context: context)
    }

    /// The result of `operation` with the private key `key`.
    private static func perform(_ operation: KeyUse.Operation, with key: AsymmetricKey) throws -> SecureBytes {
        switch operation {
        case .sign(let algorithm, let data): return SecureBytes(copying: try key.sign(algorithm, data))
        case .decrypt(let algorithm, let data): return try key.decrypt(algorithm, data)
        case .keyExchange(let algorithm, let peer, let parameters):
            return try key.keyExchange(algorithm, peer: try peer.publicKey(), parameters: parameters)
        case .export: return try key.externalRepresentation()
        }
    }
}
