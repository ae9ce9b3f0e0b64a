import Foundation
import KeychainCore

/// `kSecValueRef`: the object's attributes join the dictionary, as Apple's `query_applier` adds
/// a reference's attributes to the query.
extension RequestParser {
    /// Attributes a search by key reference leaves out, because they vary between OS versions
    /// (Apple, `AttributeCreateFilteredOutSecAttrs`).
    private static let searchOmittedKeyAttributes: Set<AttributeDescriptor> = [
        .isPermanent, .canEncrypt, .canDecrypt, .canDerive, .canSign, .canVerify, .canSignRecover, .canVerifyRecover,
        .canWrap, .canUnwrap,
    ]

    /// The request `operation` makes of `kSecValueRef` = `reference` with `attributes` beside
    /// it: the dictionary `[kSecValueRef: reference, …attributes]` parsed as `parse` parses it,
    /// for callers that hold typed values rather than a dictionary.
    package static func request(
        for reference: ItemReference, attributes: ItemAttributes = [:], operation: ItemOperation
    ) throws -> ItemRequest {
        var entries = RequestEntries()
        entries["v_Ref"] = .reference(reference)
        for (attribute, value) in attributes { entries[attribute.name] = value.requestValue }
        return try parse(entries, for: operation)
    }

    /// Replaces `kSecValueRef` by the referenced object's attributes (class included, and for
    /// an add its data); values the caller put in the dictionary win. An identity is kept
    /// whole for an add (it becomes two items) and searched by its certificate's primary key and
    /// its key's application label.
    ///
    /// - Throws: `errSecParam` when the value is not a `SecKey`, `SecCertificate` or `SecIdentity`.
    static func mergingReference(
        _ dictionary: RequestEntries, for operation: ItemOperation
    ) throws -> (RequestEntries, Identity?) {
        guard let value = dictionary["v_Ref"] else { return (dictionary, nil) }
        guard case .reference(let reference) = value else {
            throw KeychainError.param("kSecValueRef must be a SecKey, SecCertificate or SecIdentity")
        }
        var merged = RequestEntries()
        var identity: Identity?
        switch reference {
        case .key(let key):
            merged["class"] = .string(ItemClass.key.rawValue)
            for (attribute, value) in key.itemAttributes
            where operation == .add || !searchOmittedKeyAttributes.contains(attribute) {
                merged[attribute.name] = value.requestValue
            }
            if operation == .add {
                let representation = try key.storedRepresentation()
                merged["v_Data"] = .data(representation.withUnsafeBytes { Data($0) })
            }
        case .certificate(let certificate):
            merged["class"] = .string(ItemClass.certificate.rawValue)
            for (attribute, value) in certificate.itemAttributes { merged[attribute.name] = value.requestValue }
            if operation == .add {
                merged["v_Data"] = .data(certificate.der)
                if dictionary[AttributeDescriptor.label.name] == nil, let summary = certificate.subjectSummary {
                    merged[AttributeDescriptor.label.name] = .string(summary)  // Apple's infer_cert_label
                }
            }
        case .identity(let pair):
            merged["class"] = .string(ItemClass.identity.rawValue)
            if operation == .add {
                identity = pair
            } else {
                for attribute in [AttributeDescriptor.certificateType, .issuer, .serialNumber] {
                    merged[attribute.name] = pair.certificate.itemAttributes[attribute]?.requestValue
                }
                merged[AttributeDescriptor.applicationLabel.name] = .data(pair.privateKey.applicationLabel)
            }
        }
        for (name, value) in dictionary where name != "v_Ref" { merged[name] = value }
        return (merged, identity)
    }

    /// A caller's `kSecAttrIssuer` given as a whole DER `Name` is compared in Apple's normalized
    /// form, the form stored for certificates.
    static func normalizeIssuer(_ request: inout ItemRequest) {
        guard request.itemClass == .certificate || request.itemClass == .identity,
            case .data(let issuer)? = request.attributes[.issuer]
        else { return }
        request.attributes[.issuer] = .data(Certificate.normalizedNameAttribute(issuer))
    }

    /// For a key item added with its data but without an application label, the keychain
    /// computes the label (SHA-1 of the public key bytes) and the key size, as for a key added by
    /// reference; data that is not a key of the stated type and class is stored as given.
    static func inferKeyAttributes(_ request: inout ItemRequest) throws {
        guard request.itemClass == .key, let secret = request.secret,
            let type = request.attributes[.type].flatMap(KeyType.init(attribute:)),
            let keyClass = request.attributes[.keyClass].flatMap(KeyClass.init(attribute:)), keyClass != .symmetric,
            let key = try? AsymmetricKey(externalRepresentation: secret, type: type, keyClass: keyClass)
        else { return }
        if request.attributes[.applicationLabel] == nil { request.attributes[.applicationLabel] = .data(key.applicationLabel) }
        if request.attributes[.keySizeInBits] == nil { request.attributes[.keySizeInBits] = .integer(Int64(key.sizeInBits)) }
        if request.attributes[.effectiveKeySize] == nil { request.attributes[.effectiveKeySize] = .integer(Int64(key.sizeInBits)) }
    }
}
