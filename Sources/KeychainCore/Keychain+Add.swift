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
    func prepareAdd(_ request: ItemRequest, context: AccessContext) throws -> (ItemRecord, StoredRow) {
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

        // One draw of the generator gives the UUID, the nonces and the item key.
        var random = try RandomDraw(count: 16 + RandomDraw.sealingCount(withSecret: request.secret != nil))
        var record = ItemRecord(
            rowID: 0, itemClass: request.itemClass, uuid: random.data(count: 16),
            attributes: attributes, accessControl: request.accessControl)
        record.attributes[.sha1] = .data(try digest(of: record, secret: request.secret))
        return (record, try seal(record, secret: request.secret, random: &random))
    }

    /// Adds many items in one transaction: all are added, or (on the first failure, such as a
    /// duplicate) none. For bulk imports and restores; each request is treated as `add` treats it.
    ///
    /// - Returns: the number of items added.
    @discardableResult
    public func add(contentsOf requests: [ItemRequest], context: AccessContext) throws -> Int {
        try writing(sealing: { try requests.map { try prepareAdd($0, context: context) } }) { prepared, tx in
            if prepared.contains(where: { $0.0.protection == .whenPasscodeSetThisDeviceOnly }) {
                try requirePasscodeClass(in: tx)
            }
            var groups = Set<String>()
            for (record, row) in prepared {
                _ = try tx.insert(row)
                groups.insert(record.accessGroup)
            }
            for group in groups { try registerAccessGroup(group, in: tx) }
            return prepared.count
        }
    }
}
