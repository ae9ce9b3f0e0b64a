import Foundation

/// Identities: not stored, but a join of a certificate and the private key whose application
/// label equals the certificate's public-key hash (an identity has no table of its own).
extension Keychain {
    /// Attributes an identity query applies to the certificate; the rest apply to the key (Apple).
    static let certificateSideAttributes: Set<AttributeDescriptor> = [
        .label, .alias, .issuer, .serialNumber, .subjectKeyID, .tokenID, .subject, .publicKeyHash, .certificateType,
        .certificateEncoding,
    ]

    private typealias Half = (record: ItemRecord, row: StoredRow)

    /// The identities `request` selects, in certificate order.
    private func identityPairs(
        _ request: ItemRequest, context: AccessContext, in tx: KeychainStore.Transaction, limit: Int?
    ) throws -> [(certificate: Half, key: Half)] {
        var certificateQuery = ItemRequest(itemClass: .certificate)
        var keyQuery = ItemRequest(itemClass: .key)
        for (attribute, value) in request.attributes {
            if Self.certificateSideAttributes.contains(attribute) {
                certificateQuery.attributes[attribute] = value
            } else {
                keyQuery.attributes[attribute] = value
            }
        }
        keyQuery.attributes[.keyClass] = .integer(1)
        keyQuery.synchronizable = request.synchronizable
        certificateQuery.caseInsensitive = request.caseInsensitive
        keyQuery.caseInsensitive = request.caseInsensitive
        if let reference = request.persistentReference, case .uuid(let uuid) = reference.locator {
            certificateQuery.persistentReference = PersistentReference(itemClass: .certificate, uuid: uuid)
        } else if request.persistentReference != nil {
            return []
        }

        var keysByLabel: [Data: [Half]] = [:]
        try forEachMatch(keyQuery, context: context, in: tx) { record, row in
            if case .data(let label)? = record.attributes[.applicationLabel] { keysByLabel[label, default: []].append((record, row)) }
            return true
        }
        var pairs: [(certificate: Half, key: Half)] = []
        try forEachMatch(certificateQuery, context: context, in: tx) { record, row in
            guard case .data(let hash)? = record.attributes[.publicKeyHash], let keys = keysByLabel[hash] else { return true }
            for key in keys {
                pairs.append(((record, row), key))
                if let limit, pairs.count >= limit { return false }
            }
            return true
        }
        return pairs
    }

    /// `SecItemCopyMatching` for `kSecClassIdentity`.
    func searchIdentities(_ request: ItemRequest, context: AccessContext, limit: Int?) throws -> [ItemResult] {
        let results: [ItemResult] = try reading { tx in
            try identityPairs(request, context: context, in: tx, limit: limit).compactMap { pair in
                // The private key's secret and object; its attributes are the identity's below.
                let keyReturns = request.returns.subtracting(.attributes)
                guard let key = try makeResult(pair.key.record, row: pair.key.row, returns: keyReturns) else {
                    return nil
                }
                return try ItemResultBuilder(returns: request.returns).result(
                    itemClass: .identity, attributesOf: pair.key.record, overlaidWith: pair.certificate.record,
                    data: key.data,
                    persistentReference: PersistentReference(itemClass: .identity, uuid: pair.certificate.record.uuid),
                    leavingOutItemsWithoutObject: true
                ) { _ in
                    let certificateData = try pair.certificate.row.secret.map {
                        try store.openSecret($0, sealedIn: pair.certificate.row).get().withUnsafeBytes { Data($0) }
                    }
                    guard case .key(let privateKey)? = key.reference,
                        case .certificate(let certificate)? = reference(
                            itemClass: .certificate, attributes: pair.certificate.record.attributes, secret: certificateData)
                    else { return nil }
                    return .identity(Identity(certificate: certificate, privateKey: privateKey))
                }
            }
        }
        guard !results.isEmpty else { throw KeychainError(.itemNotFound, "no identity matched the query") }
        return results
    }

    /// `SecItemUpdate` for `kSecClassIdentity`: the change is applied to each identity's
    /// certificate and private key (each taking the attributes its class has).
    func updateIdentities(_ request: ItemRequest, changes: ItemChanges, context: AccessContext) throws {
        try writing(removing: true) { tx in
            let pairs = try identityPairs(request, context: context, in: tx, limit: nil)
            guard !pairs.isEmpty else { throw KeychainError(.itemNotFound, "no identity matched the query") }
            for pair in pairs {
                for half in [pair.certificate, pair.key] {
                    var scoped = changes
                    scoped.attributes = changes.attributes.filter {
                        $0.key.belongs(to: half.record.itemClass)
                    }
                    try apply(scoped, to: half.record, row: half.row, in: tx)
                }
            }
        }
    }

    /// `SecItemDelete` for `kSecClassIdentity`: deletes each identity's certificate, and its key
    /// unless another certificate still uses that key (Apple, `SecItem.m`).
    func deleteIdentities(_ request: ItemRequest, context: AccessContext) throws -> Int {
        try writing(removing: true) { tx in
            let pairs = try identityPairs(request, context: context, in: tx, limit: nil)
            guard !pairs.isEmpty else { throw KeychainError(.itemNotFound, "no identity matched the query") }
            var deletedCertificates = Set<Int64>()
            for pair in pairs where deletedCertificates.insert(pair.certificate.record.rowID).inserted {
                try tx.delete(rowID: pair.certificate.record.rowID)
            }
            for pair in pairs {
                var stillUsed = false
                var users = ItemRequest(itemClass: .certificate)
                users.attributes[.publicKeyHash] = pair.key.record.attributes[.applicationLabel]
                try forEachMatch(users, context: AccessContext(accessGroups: ["*"]), in: tx) { _, _ in
                    stillUsed = true
                    return false
                }
                if !stillUsed { try tx.delete(rowID: pair.key.record.rowID) }
            }
            return deletedCertificates.count
        }
    }
}
