import KeychainCore

/// `SecKeyCreateRandomKey`'s parameter handling and storage, as Apple's `SecKey.m` does it: the
/// type picks the generator, parameters may sit at the top level or in the private/public
/// sub-dictionaries (whose values win), the generation-only keys are dropped before storage, and
/// each half is stored only when its parameters say `kSecAttrIsPermanent`. With
/// `kSecAttrTokenID` = `kSecAttrTokenIDSecureEnclave` (top level only) the private key is made
/// inside the TPM and stored as its wrapped blob. A permanent private key whose access control
/// has constraints or `.applicationPassword` is generated inside the keychain (`KeychainHandle.generateKey`; a token key in
/// the keychain's TPM), which keeps it: the caller gets a reference (`SecKey` used through the
/// keychain), so every use of the private key satisfies the constraint there.
///
/// A key generated without `kSecAttrIsPermanent` is never stored. A token key whose access
/// control has user constraints (and no application password), as CryptoKit's
/// `SecureEnclave.P256` makes, is generated inside the keychain
/// (`KeychainHandle.generateEphemeralKey`), which keeps it in memory only, bound to this process:
/// the caller gets a reference, and every use satisfies the access control there, as Apple's
/// Secure Enclave checks it on every use. Releasing the `SecKey` asks the keychain to forget the
/// key. Any other key keeps its private half in the returned `SecKey` (a token key's as its TPM
/// blob), and its access control is not enforced: for a software key that is Apple's behaviour
/// too (the key is in the process's memory); a token key with only an application password is
/// the one case left where Apple would enforce it and this keychain does not.
enum KeyGeneration {
    /// Parameters that describe the generation and are not stored with the key.
    private static let generationOnly: Set<String> = [
        kSecAttrKeyType as String, kSecAttrKeySizeInBits as String, kSecPrivateKeyAttrs as String, kSecPublicKeyAttrs as String,
    ]

    /// Generates the pair `parameters` describes and stores the halves marked permanent.
    static func run(_ parameters: CFDictionary) throws -> (privateKey: SecKey, publicKey: SecKey) {
        let top = try RequestBridge.dictionary(parameters).dictionary
        let privateAttributes = try subDictionary(top[kSecPrivateKeyAttrs as String], name: "kSecPrivateKeyAttrs")
        let publicAttributes = try subDictionary(top[kSecPublicKeyAttrs as String], name: "kSecPublicKeyAttrs")
        func value(_ name: String) -> RequestValue? { privateAttributes[name] ?? top[name] }

        guard let type = value(kSecAttrKeyType as String).flatMap(attribute).flatMap(KeyType.init(attribute:)) else {
            throw KeychainError.param("incorrect or missing kSecAttrKeyType in key generation request")
        }
        guard let bits = value(kSecAttrKeySizeInBits as String).flatMap(attribute)?.integerValue else {
            throw KeychainError.param("missing kSecAttrKeySizeInBits in key generation request")
        }
        let inToken: Bool
        switch top[kSecAttrTokenID as String] {
        case nil: inToken = false
        case .string(let token)? where token == kSecAttrTokenIDSecureEnclave as String:
            guard AsymmetricKey.isHardwareConfigured else {
                throw KeychainError(.unimplemented, "Secure Enclave keys (kSecAttrTokenIDSecureEnclave) need a TPM 2.0 (set KEYCHAIN_TPM)")
            }
            inToken = true
        default:
            throw KeychainError.param("kSecAttrTokenID names no token this keychain has")
        }
        var common = top.filter { !generationOnly.contains($0.key) }
        common.removeValue(forKey: kSecClass as String)
        let privateParameters = common.merging(privateAttributes) { _, specific in specific }
        // The public half of a token key is an ordinary software key.
        var publicParameters = common.merging(publicAttributes) { _, specific in specific }
        publicParameters.removeValue(forKey: kSecAttrTokenID as String)
        let privatePermanent = privateParameters[kSecAttrIsPermanent as String]?.isTrue == true

        let privateKey: SecKey
        let publicKey: AsymmetricKey
        if !privatePermanent, inToken, let request = try heldKeyRequest(privateParameters, type: type, inToken: inToken, inMemory: true) {
            // The keychain keeps the token key in memory and checks its access control on every use.
            let keychain = try ProcessKeychain.resolve()
            guard case .key(let held)? = try keychain.generateEphemeralKey(request, type: type, bits: Int(bits)).reference,
                held.isKeptInKeychainMemory
            else { throw KeychainError(.internal, "the keychain returned no reference to the key it generated") }
            privateKey = SecKey(held, holder: KeyHolder(keychain: keychain, entries: RequestEntries(privateParameters)), forgetsOnRelease: true)
            publicKey = try held.publicKey()
        } else if privatePermanent, let request = try heldKeyRequest(privateParameters, type: type, inToken: inToken) {
            // The keychain keeps the private key: it is generated there, and this process gets a reference.
            let keychain = try ProcessKeychain.resolve()
            // A key sealed under an application password gets it from the key's context, else asks.
            let generated = try AuthenticatedCall.run(request, entries: RequestEntries(privateParameters), keychain: keychain) {
                try keychain.generateKey($0, type: type, bits: Int(bits))
            }
            guard case .key(let held)? = generated?.reference, held.isHeldByKeychain
            else { throw KeychainError(.internal, "the keychain returned no reference to the key it generated") }
            privateKey = SecKey(held, holder: KeyHolder(keychain: keychain, entries: RequestEntries(privateParameters)))
            publicKey = try held.publicKey()
        } else {
            let generated = inToken
                ? try AsymmetricKey.generateInHardware(type: type, bits: Int(bits))
                : try AsymmetricKey.generate(type: type, bits: Int(bits))
            publicKey = try generated.publicKey()
            if privatePermanent { try store(generated, privateParameters) }
            privateKey = SecKey(generated)
        }
        if publicParameters[kSecAttrIsPermanent as String]?.isTrue == true { try store(publicKey, publicParameters) }
        return (privateKey, SecKey(publicKey))
    }

    /// The add request of a private key the keychain will hold (its access control has
    /// constraints or an application password), for the keychain to generate the key into (in
    /// its TPM for `inToken`); nil for other keys. `inMemory` (a key not stored) asks for user
    /// constraints without an application password, which is all a key kept in memory enforces.
    ///
    /// - Throws: `errSecParam` for a token ID below the top level of the parameters.
    private static func heldKeyRequest(
        _ parameters: [String: RequestValue], type: KeyType, inToken: Bool, inMemory: Bool = false
    ) throws -> ItemRequest? {
        guard parameters[kSecAttrAccessControl as String] != nil else { return nil }
        var dictionary = parameters.filter { !generationOnly.contains($0.key) }
        dictionary[kSecClass as String] = .string(kSecClassKey as String)
        dictionary[kSecAttrKeyType as String] = .string(String(type.rawValue))
        dictionary[kSecAttrKeyClass as String] = .string(kSecAttrKeyClassPrivate as String)
        // A token key has no data yet: the add it becomes is checked with the key's data, in the keychain.
        guard dictionary.removeValue(forKey: kSecAttrTokenID as String) == nil || inToken else {
            throw KeychainError.param("kSecAttrTokenID is given at the top level of the key generation parameters")
        }
        var request = try RequestParser.parse(dictionary, for: .add)
        guard let policy = request.accessControl, policy.guardsSecret else { return nil }
        if inMemory && (policy.userConstraints.isEmpty || policy.flags.contains(.applicationPassword)) { return nil }
        if inToken { request.attributes[.tokenID] = .string(AsymmetricKey.secureEnclaveTokenID) }
        request.returns = [.reference]
        return request
    }

    /// Adds `key` as `SecItemAdd` with `kSecValueRef` would.
    private static func store(_ key: AsymmetricKey, _ parameters: [String: RequestValue]) throws {
        var dictionary = parameters.filter { !generationOnly.contains($0.key) }
        dictionary[kSecClass as String] = .string(kSecClassKey as String)
        dictionary[kSecValueRef as String] = .reference(.key(key))
        let request = try RequestParser.parse(dictionary, for: .add)
        _ = try ProcessKeychain.resolve().add(request)
    }

    private static func subDictionary(_ value: RequestValue?, name: String) throws -> [String: RequestValue] {
        switch value {
        case nil: return [:]
        case .dictionary(let entries)?: return entries
        default: throw KeychainError.param("\(name) must be a dictionary")
        }
    }

    /// A number or numeric string as an attribute value.
    static func attribute(_ value: RequestValue) -> AttributeValue? {
        switch value {
        case .integer(let number): return .integer(number)
        case .string(let text): return Int64(text).map(AttributeValue.integer)
        case .real(let real): return Int64(exactly: real).map(AttributeValue.integer)
        default: return nil
        }
    }
}

extension RequestValue {
    /// Whether the value is a true flag (a true boolean or the number 1).
    var isTrue: Bool {
        switch self {
        case .boolean(let flag): return flag
        case .integer(let number): return number != 0
        default: return false
        }
    }
}
