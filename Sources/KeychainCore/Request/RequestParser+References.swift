import Foundation

/// `kSecValueRef`: the object's attributes join the dictionary, as Apple's `query_applier` adds
/// a reference's attributes to the query.
extension RequestParser {
    /// Attributes a search by key reference leaves out, because they vary between OS versions
    /// (Apple, `AttributeCreateFilteredOutSecAttrs`).
    private static let searchOmittedKeyAttributes: Set<String> = [
        "perm", "encr", "decr", "drve", "sign", "vrfy", "snrc", "vyrc", "wrap", "unwp",
    ]

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
            for (name, attribute) in key.itemAttributes
            where operation == .add || !searchOmittedKeyAttributes.contains(name) {
                merged[name] = attribute.requestValue
            }
            if operation == .add {
                let representation = try key.externalRepresentation()
                merged["v_Data"] = .data(representation.withUnsafeBytes { Data($0) })
            }
        case .certificate(let certificate):
            merged["class"] = .string(ItemClass.certificate.rawValue)
            for (name, attribute) in certificate.itemAttributes { merged[name] = attribute.requestValue }
            if operation == .add {
                merged["v_Data"] = .data(certificate.der)
                if dictionary["labl"] == nil, let summary = certificate.subjectSummary {
                    merged["labl"] = .string(summary)  // Apple's infer_cert_label
                }
            }
        case .identity(let pair):
            merged["class"] = .string(ItemClass.identity.rawValue)
            if operation == .add {
                identity = pair
            } else {
                for name in ["ctyp", "issr", "slnr"] {
                    merged[name] = pair.certificate.itemAttributes[name]?.requestValue
                }
                merged["klbl"] = .data(pair.privateKey.applicationLabel)
            }
        }
        for (name, value) in dictionary where name != "v_Ref" { merged[name] = value }
        return (merged, identity)
    }

    /// A caller's `kSecAttrIssuer` given as a whole DER `Name` is compared in Apple's normalized
    /// form, the form stored for certificates.
    static func normalizeIssuer(_ request: inout ItemRequest) {
        guard request.itemClass == .certificate || request.itemClass == .identity,
            case .data(let issuer)? = request.attributes["issr"]
        else { return }
        request.attributes["issr"] = .data(Certificate.normalizedNameAttribute(issuer))
    }

    /// For a key item added with its data but without an application label, the keychain
    /// computes the label (SHA-1 of the public key bytes) and the key size, as for a key added by
    /// reference; data that is not a key of the stated type and class is stored as given.
    static func inferKeyAttributes(_ request: inout ItemRequest) throws {
        guard request.itemClass == .key, let secret = request.secret,
            let type = request.attributes["type"].flatMap(KeyType.init(attribute:)),
            let keyClass = request.attributes["kcls"].flatMap(KeyClass.init(attribute:)), keyClass != .symmetric,
            let key = try? AsymmetricKey(externalRepresentation: secret, type: type, keyClass: keyClass)
        else { return }
        if request.attributes["klbl"] == nil { request.attributes["klbl"] = .data(key.applicationLabel) }
        if request.attributes["bsiz"] == nil { request.attributes["bsiz"] = .integer(Int64(key.sizeInBits)) }
        if request.attributes["esiz"] == nil { request.attributes["esiz"] = .integer(Int64(key.sizeInBits)) }
    }
}
