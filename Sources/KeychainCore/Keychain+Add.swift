import Foundation

extension Keychain {
    /// Builds the record and sealed row `request` adds: the caller's attributes, empty defaults
    /// for omitted primary-key attributes, the default access group and accessibility, dates and
    /// the item digest. The default group is the caller's first (`AccessContext`), the default
    /// accessibility the class's (`ItemClass.defaultProtection`).
    ///
    /// - Throws: `errSecMissingEntitlement` for an access group the caller lacks; `errSecAuthFailed`
    ///   for a passcode-only item while no passcode is set; `errSecInteractionNotAllowed` when the
    ///   item's protection class is locked (checked before uniqueness: encryption comes first, as
    ///   in Apple's keychain).
    func prepareAdd(_ request: ItemRequest, context: AccessContext) throws -> SealedItem {
        var attributes = request.attributes.filter { $0.key.maintainer == .caller }
        for attribute in AttributeCatalog.primaryKey(of: request.itemClass) where !attributes.contains(attribute) {
            attributes[attribute] = attribute.emptyValue
        }
        if let group = request.attributes[.accessGroup]?.stringValue {
            try context.requireEntitlement(to: group)
        } else {
            attributes[.accessGroup] = .string(try context.defaultGroupForAdd())
        }
        attributes[.synchronizable] = .integer(request.synchronizable.valueForAdd ? 1 : 0)
        let protection = request.accessControl?.protection
            ?? request.attributes[.accessible]?.stringValue.flatMap(Protection.init)
            ?? request.itemClass.defaultProtection
        attributes[.accessible] = .string(protection.rawValue)
        if protection == .whenPasscodeSetThisDeviceOnly && !keyRing.hasPasscode {
            throw KeychainError(
                .authFailed, "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly needs a passcode, and none is set")
        }
        let now = Date()
        attributes[.creationDate] = .date(now)
        attributes[.modificationDate] = .date(now)

        // The digest covers attributes and data, not the UUID, which the store draws as it seals.
        var record = ItemRecord(
            rowID: 0, itemClass: request.itemClass, uuid: Data(), attributes: attributes,
            accessControl: try currentBiometricBinding(for: request.accessControl))
        record.attributes[.sha1] = .data(try digest(of: record, secret: request.secret))
        if request.secret != nil {
            record.sealingPassword = try sealingPassword(for: record, authentication: request.authentication, ui: request.authenticationUI)
        }
        return try store.seal(newItem: record, secret: request.secret)
    }

    /// Adds many items in one transaction: all are added, or (on the first failure, such as a
    /// duplicate) none. For bulk imports and restores; each request is treated as `add` treats it.
    ///
    /// - Returns: the number of items added.
    @discardableResult
    public func add(contentsOf requests: [ItemRequest], context: AccessContext) throws -> Int {
        try writing(sealing: { try requests.map { try prepareAdd($0, context: context) } }) { prepared, tx in
            if prepared.contains(where: { $0.record.protection == .whenPasscodeSetThisDeviceOnly }) {
                try requirePasscodeClass(in: tx)
            }
            try tx.insert(contentsOf: prepared)
            return prepared.count
        }
    }
}
