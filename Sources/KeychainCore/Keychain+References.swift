import Foundation

/// The objects behind `kSecValueRef` and `kSecReturnRef`: keys and certificates are rebuilt from
/// their stored data; an identity is added as its certificate and its private key.
extension Keychain {
    /// The `SecKey` or `SecCertificate` an item's data holds; nil when the data is not one.
    func reference(itemClass: ItemClass, attributes: ItemAttributes, secret: Data?) -> ItemReference? {
        guard let secret else { return nil }
        switch itemClass {
        case .certificate:
            return (try? Certificate(der: secret)).map(ItemReference.certificate)
        case .key where attributes[.tokenID] == .string(AsymmetricKey.secureEnclaveTokenID):
            return (try? AsymmetricKey(hardwareRepresentation: secret)).map(ItemReference.key)
        case .key:
            guard let type = attributes[.type].flatMap(KeyType.init(attribute:)),
                let keyClass = attributes[.keyClass].flatMap(KeyClass.init(attribute:)),
                let key = try? AsymmetricKey(externalRepresentation: secret, type: type, keyClass: keyClass)
            else { return nil }
            return .key(key)
        default:
            return nil
        }
    }

    /// `SecItemAdd` with `kSecValueRef` = a `SecIdentity`: adds the certificate, then the
    /// private key, with the caller's other attributes applied to each where its class has them
    /// (the label to both). A certificate or key that is already stored is tolerated as long as
    /// the other half is new; when both exist the add is `errSecDuplicateItem` (as Apple's
    /// `SecItem.m` does it). Both halves are written in one transaction.
    func addIdentity(_ request: ItemRequest, context: AccessContext) throws -> ItemResult? {
        guard let identity = request.identity else { throw KeychainError.param("no identity to add") }
        var certificateAttributes = identity.certificate.itemAttributes
        if let summary = identity.certificate.subjectSummary { certificateAttributes[.label] = .string(summary) }
        let representation = try identity.privateKey.externalRepresentation()
        var keySecret = representation.withUnsafeBytes { Data($0) }
        defer { keySecret.wipe() }
        let certificateRequest = half(.certificate, certificateAttributes, secret: identity.certificate.der, of: request)
        let keyRequest = half(.key, identity.privateKey.itemAttributes, secret: keySecret, of: request)
        let prepare = {
            (certificate: try self.prepareAdd(certificateRequest, context: context), key: try self.prepareAdd(keyRequest, context: context))
        }
        let (certificateRecord, keyRecord) = try writing(sealing: prepare) { prepared, tx in
            var certificateRecord = prepared.certificate.record
            var keyRecord = prepared.key.record
            var added = 0
            do {
                certificateRecord = try tx.insert(prepared.certificate)
                added += 1
            } catch let error as KeychainError where error.code == .duplicateItem {
                if let existing = try tx.lookup(primaryKeyToken: prepared.certificate.row.primaryKeyToken).row {
                    certificateRecord.uuid = existing.uuid
                }
            }
            do {
                keyRecord = try tx.insert(prepared.key)
                added += 1
            } catch let error as KeychainError where error.code == .duplicateItem {
                // The key is already stored: another certificate of the same key pair.
            }
            guard added > 0 else { throw KeychainError(.duplicateItem, "the identity's certificate and key exist") }
            return (certificateRecord, keyRecord)
        }
        guard !request.returns.isEmpty else { return nil }
        return ItemResultBuilder(returns: request.returns).result(
            itemClass: .identity, attributesOf: keyRecord, overlaidWith: certificateRecord, data: keySecret,
            persistentReference: PersistentReference(itemClass: .identity, uuid: certificateRecord.uuid),
            leavingOutItemsWithoutObject: false, reference: { _ in .identity(identity) })
    }

    /// One half of an identity add: the object's attributes, overlaid with the caller's values
    /// that `itemClass` has.
    private func half(
        _ itemClass: ItemClass, _ attributes: ItemAttributes, secret: Data, of request: ItemRequest
    ) -> ItemRequest {
        var half = ItemRequest(itemClass: itemClass)
        half.attributes = attributes
        for (attribute, value) in request.attributes where attribute.belongs(to: itemClass) {
            half.attributes[attribute] = value
        }
        half.accessControl = request.accessControl
        half.synchronizable = request.synchronizable
        half.secret = secret
        return half
    }
}
