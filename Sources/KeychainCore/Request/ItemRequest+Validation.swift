import Foundation

/// The checks every typed request passes before the engine runs it, wherever it came from: the
/// `Security` surface's decoder ends in them, and `keychaind` runs them on each request a peer
/// sends (its wire codec checks structure only). The engine relies on what they establish; a
/// request that fails one is refused with the status the decoder gives the equivalent
/// dictionary (`errSecParam`, or `errSecUnimplemented` for a search key it does not support).
extension ItemRequest {
    /// The largest attribute value or secret accepted: larger ones are `errSecParam`, never a
    /// crash (Apple documents no limit; 16 MiB must work).
    public static let maximumValueSize = 64 << 20

    /// Checks that the request is one the engine can run for `operation`:
    /// - every attribute is a catalog attribute of the class (an identity has those of
    ///   certificates and keys), none is the synchronizable flag or the access control (each has
    ///   its own field), and each value has a form its kind takes (`AttributeDescriptor.validate`);
    /// - values and the secret are at most `maximumValueSize` bytes;
    /// - only an add carries a secret or an identity, and only another operation a persistent
    ///   reference, which names an item of the request's class;
    /// - an identity is added as `kSecClassIdentity`, and its private key is the certificate's;
    /// - a match limit counts zero or more items;
    /// - an add of an identity has one, an add of a key has its key type, and an add does not
    ///   combine `kSecAttrAccessible` with an access control, nor make an item synchronizable
    ///   that has an access control, a `ThisDeviceOnly` accessibility or a token ID;
    /// - a search by persistent reference names nothing else, and only internet passwords are
    ///   searched by host or subdomain (`errSecUnimplemented` otherwise).
    ///
    /// - Throws: `errSecParam` (or `errSecUnimplemented`, above) naming the rule, never a value.
    public func validate(for operation: ItemOperation) throws {
        try Self.validateAttributes(attributes, of: itemClass)
        if let secret {
            guard operation == .add else { throw KeychainError.param("only SecItemAdd takes kSecValueData") }
            try Self.requireSize(secret.count, of: "kSecValueData")
        }
        if let persistentReference {
            guard operation != .add else { throw KeychainError.param("SecItemAdd does not take kSecValuePersistentRef") }
            guard persistentReference.itemClass == itemClass else {
                throw KeychainError.param("kSecValuePersistentRef names an item of another class")
            }
        }
        if let identity {
            guard operation == .add else { throw KeychainError.param("only SecItemAdd takes a SecIdentity") }
            guard itemClass == .identity else { throw KeychainError.param("a SecIdentity is added as kSecClassIdentity") }
            guard identity.certificate.matches(privateKey: identity.privateKey) else {
                throw KeychainError.param("the identity's private key is not its certificate's")
            }
        }
        if case .count(let count)? = matchLimit, count < 0 {
            throw KeychainError.param("kSecMatchLimit must not be negative")
        }
        if let hostOrSubdomain { try Self.requireSize(hostOrSubdomain.utf8.count, of: "kSecMatchHostOrSubdomainOfHost") }
        switch operation {
        case .add: try validateAdd()
        case .copyMatching: try validateSearch()
        case .update, .delete: break
        }
    }

    /// Checks a request `Keychain.generateKey` adds its new private key by: a key item without
    /// data or identity, which passes `validate(for: .add)` once the key's data is there. Its
    /// token ID, when it has one, is the Secure Enclave's: the key is then made inside the token,
    /// which is the one way a token key comes to exist.
    ///
    /// - Throws: `errSecParam` naming the rule, never a value.
    public func validateForGeneration() throws {
        guard itemClass == .key, secret == nil, identity == nil else {
            throw KeychainError.param("a generated key is added as a key item without data")
        }
        var request = self
        if let token = request.attributes.removeValue(forKey: .tokenID), token != .string(AsymmetricKey.secureEnclaveTokenID) {
            throw KeychainError.param("kSecAttrTokenID names no token this keychain has")
        }
        try request.validate(for: .add)
    }

    private func validateAdd() throws {
        if itemClass == .identity && identity == nil {
            throw KeychainError.param("an identity is added by kSecValueRef, or as a certificate and a key")
        }
        if itemClass == .key && attributes[.type] == nil {
            throw KeychainError.param("a key item needs kSecAttrKeyType")
        }
        if itemClass == .key, let token = attributes[.tokenID] {
            // A token key is made inside its token; its data is the token's own wrapped blob.
            guard token == .string(AsymmetricKey.secureEnclaveTokenID) else {
                throw KeychainError.param("kSecAttrTokenID names no token this keychain has")
            }
            guard let secret, (try? AsymmetricKey(hardwareRepresentation: secret)) != nil else {
                throw KeychainError.param("a key cannot be imported into the Secure Enclave token: create it with SecKeyCreateRandomKey")
            }
        }
        if attributes[.accessible] != nil && accessControl != nil {
            throw KeychainError.param("kSecAttrAccessible and kSecAttrAccessControl cannot be combined")
        }
        if synchronizable == .only(true) {
            let protection = accessControl?.protection ?? attributes[.accessible]?.stringValue.flatMap(Protection.init)
            try Self.requireSynchronizable(protection: protection, accessControl: accessControl)
            try Self.requireSynchronizable(tokenID: attributes[.tokenID])
        }
    }

    private func validateSearch() throws {
        if persistentReference != nil {
            var named = !attributes.isEmpty || accessControl != nil
            if case .only = synchronizable { named = true }
            if named { throw KeychainError.param("a persistent reference cannot be searched with other attributes") }
        }
        if hostOrSubdomain != nil && itemClass != .internetPassword {
            throw KeychainError(.unimplemented, "kSecMatchHostOrSubdomainOfHost applies to internet passwords only")
        }
    }

    /// Checks each attribute of a request or change set for `itemClass`.
    static func validateAttributes(_ attributes: ItemAttributes, of itemClass: ItemClass) throws {
        for (attribute, value) in attributes {
            guard AttributeCatalog.attribute(attribute.name, in: itemClass) === attribute else {
                throw KeychainError.param("\(attribute.constant) is not an attribute of \(itemClass.constantName)")
            }
            try attribute.validate(value)
        }
    }

    /// Checks a value or secret's size against `maximumValueSize`.
    static func requireSize(_ count: Int, of what: String) throws {
        guard count <= maximumValueSize else { throw KeychainError.param("\(what) is larger than the keychain accepts") }
    }

    /// Checks that an item with token ID `tokenID` may be synchronizable: an item in a token (a
    /// key made in the TPM) never leaves its device, so only one without a token ID (or with an
    /// empty one) is.
    ///
    /// - Throws: `errSecParam`.
    public static func requireSynchronizable(tokenID: AttributeValue?) throws {
        guard let tokenID, tokenID != AttributeDescriptor.tokenID.emptyValue else { return }
        throw KeychainError.param("an item in a token (kSecAttrTokenID) never leaves its device and is not synchronizable")
    }

    /// Checks that an item with `protection` and `accessControl` may be synchronizable: no
    /// `ThisDeviceOnly` accessibility, no access control.
    static func requireSynchronizable(protection: Protection?, accessControl: AccessControlPolicy?) throws {
        if protection?.isThisDeviceOnly == true {
            // Apple's header: "not allowed" (its daemon does not check).
            throw KeychainError.param("a synchronizable item cannot use a ThisDeviceOnly accessibility")
        }
        if accessControl != nil {
            throw KeychainError.param("an item with kSecAttrAccessControl is not synchronizable")
        }
    }
}

extension ItemChanges {
    /// Checks that the changes can be applied to items of `itemClass`: each attribute is one the
    /// caller sets (not one the keychain maintains) and passes `ItemRequest.validate`'s attribute
    /// rules; the secret is at most `ItemRequest.maximumValueSize` bytes; `kSecAttrAccessible`
    /// and an access control are not both given; and an item made synchronizable gets neither an
    /// access control nor a `ThisDeviceOnly` accessibility; a key's token ID is not changed (it
    /// says where the key was made and how its data reads).
    ///
    /// - Throws: `errSecParam` naming the rule.
    public func validate(for itemClass: ItemClass) throws {
        try ItemRequest.validateAttributes(attributes, of: itemClass)
        if itemClass == .key && attributes[.tokenID] != nil {
            throw KeychainError.param("a key's kSecAttrTokenID is set when the key is created and cannot be changed")
        }
        for (attribute, _) in attributes where attribute.maintainer != .caller {
            throw KeychainError.param("\(attribute.constant) is maintained by the keychain and cannot be changed")
        }
        if let secret { try ItemRequest.requireSize(secret.count, of: "kSecValueData") }
        if attributes[.accessible] != nil && accessControl != nil {
            throw KeychainError.param("kSecAttrAccessible and kSecAttrAccessControl cannot be combined")
        }
        if synchronizable == true {
            try ItemRequest.requireSynchronizable(
                protection: attributes[.accessible]?.stringValue.flatMap(Protection.init), accessControl: accessControl)
        }
    }
}

extension AttributeDescriptor {
    /// Checks that `value` has a form this attribute's kind takes, the forms the `Security`
    /// surface converts dictionary values to: a blob is text, bytes or a number; data is bytes;
    /// a string attribute is text; a number is a number, or text (a code such as `"htps"`); a
    /// date is a date; an accessibility is one of `Protection`'s codes; a digest is 20 bytes.
    /// Text and bytes are at most `ItemRequest.maximumValueSize` bytes. The synchronizable flag
    /// and the access control are no attribute values: each has its own field.
    ///
    /// - Throws: `errSecParam` naming the attribute and the rule, never the value.
    public func validate(_ value: AttributeValue) throws {
        let accepted: Bool
        switch (kind, value) {
        case (.blob, .string), (.blob, .data), (.blob, .integer): accepted = true
        case (.data, .data), (.string, .string), (.number, .integer), (.number, .string), (.date, .date): accepted = true
        case (.protection, .string(let code)): accepted = Protection(rawValue: code) != nil
        case (.digest, .data(let digest)): accepted = digest.count == 20
        case (.synchronizable, _), (.accessControl, _):
            throw KeychainError.param("\(constant) is given in its own field of a request, not as an attribute value")
        default: accepted = false
        }
        guard accepted else { throw KeychainError.param("\(constant) does not take a value of this form") }
        switch value {
        case .string(let text): try ItemRequest.requireSize(text.utf8.count, of: constant)
        case .data(let data): try ItemRequest.requireSize(data.count, of: constant)
        case .integer, .date: break
        }
    }
}
