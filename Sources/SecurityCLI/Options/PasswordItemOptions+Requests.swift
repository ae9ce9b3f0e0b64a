import Foundation
import KeychainCore

extension PasswordItemOptions {
    /// The authentication type an added internet password gets without `-t`.
    static let defaultAuthenticationType = "dflt"

    /// The search macOS's `find_first_generic_password` / `find_first_internet_password` runs.
    ///
    /// When the item's whole primary key is given (account and service for generic passwords;
    /// account, security domain, server, protocol, authentication type, port and path for
    /// internet passwords), only the key is searched and the other criteria are ignored.
    func searchRequest(_ kind: PasswordKind) -> ItemRequest {
        var request = ItemRequest(itemClass: kind.itemClass)
        let primaryKeyOnly: Bool
        switch kind {
        case .generic:
            primaryKeyOnly = account != nil && serviceOrServer != nil
        case .internet:
            primaryKeyOnly = account != nil && securityDomain != nil && serviceOrServer != nil && protocolCode != nil
                && authenticationType != nil && port != 0 && path != nil
        }
        if !primaryKeyOnly {
            request.attributes[.creator] = creator.map { .integer(Int64($0.packed)) }
            request.attributes[.type] = type.map { .integer(Int64($0.packed)) }
            request.attributes[.description] = self.kind.map(AttributeValue.string)
            request.attributes[.comment] = comment.map(AttributeValue.string)
            request.attributes[.label] = label.map(AttributeValue.string)
            if kind == .generic { request.attributes[.generic] = genericValue.map(AttributeValue.string) }
        }
        request.attributes[.account] = account.map(AttributeValue.string)
        switch kind {
        case .generic:
            request.attributes[.service] = serviceOrServer.map(AttributeValue.string)
        case .internet:
            request.attributes[.server] = serviceOrServer.map(AttributeValue.string)
            request.attributes[.securityDomain] = securityDomain.map(AttributeValue.string)
            request.attributes[.path] = path.map(AttributeValue.string)
            request.attributes[.port] = port == 0 ? nil : .integer(Int64(port))
            request.attributes[.protocol] = protocolCode.map { .string($0.text) }
            request.attributes[.authenticationType] = authenticationType.map { .string($0.text) }
        }
        request.matchLimit = .one
        return request
    }

    /// The item an add of these options collides with (errSecDuplicateItem), which `-U` then
    /// updates: the added item's primary key, omitted attributes empty as the add stores them, in
    /// `accessGroup` (the group the add writes to), synchronizable as `-S` says.
    func addedItemKey(_ kind: PasswordKind, accessGroup: String) -> ItemRequest {
        let attributes = addRequest(kind).attributes
        var request = ItemRequest(itemClass: kind.itemClass)
        for attribute in AttributeCatalog.primaryKey(of: kind.itemClass) where attribute != .synchronizable {
            request.attributes[attribute] = attributes[attribute] ?? attribute.emptyValue
        }
        request.attributes[.accessGroup] = .string(accessGroup)
        request.synchronizable = .only(synchronizable)
        return request
    }

    /// The attributes of a new item (without its secret): the label defaults to the service or
    /// server, an internet password's authentication type to `dflt` and its port to 0.
    func addRequest(_ kind: PasswordKind) -> ItemRequest {
        var request = ItemRequest(itemClass: kind.itemClass)
        request.attributes = itemAttributes(kind)
        if kind == .internet {
            request.attributes[.port] = .integer(Int64(port))
        }
        if let accessControl {
            // The protection goes with the access control (`-e`, else WhenUnlocked).
            let protection = request.attributes.removeValue(forKey: .accessible)?.stringValue.flatMap(Protection.init)
            request.accessControl = try? AccessControlPolicy(protection: protection ?? .whenUnlocked, flags: accessControl)
        }
        if synchronizable { request.synchronizable = .only(true) }
        return request
    }

    /// What `-U` changes on an existing item: every attribute given, the defaulted label, and the
    /// password when one was given.
    func changes(_ kind: PasswordKind) -> ItemChanges {
        var changes = ItemChanges()
        changes.attributes = itemAttributes(kind)
        if kind == .internet, port != 0 {
            changes.attributes[.port] = .integer(Int64(port))
        }
        return changes
    }

    /// The attributes an add or update writes, apart from the port.
    private func itemAttributes(_ kind: PasswordKind) -> ItemAttributes {
        var attributes = ItemAttributes()
        attributes[.label] = (label ?? serviceOrServer).map(AttributeValue.string)
        attributes[.description] = self.kind.map(AttributeValue.string)
        attributes[.comment] = comment.map(AttributeValue.string)
        attributes[.account] = account.map(AttributeValue.string)
        attributes[.creator] = creator.map { .integer(Int64($0.packed)) }
        attributes[.type] = type.map { .integer(Int64($0.packed)) }
        attributes[.accessible] = accessibility.map { .string($0.rawValue) }
        switch kind {
        case .generic:
            attributes[.service] = serviceOrServer.map(AttributeValue.string)
            attributes[.generic] = genericValue.map(AttributeValue.string)
        case .internet:
            attributes[.server] = serviceOrServer.map(AttributeValue.string)
            attributes[.securityDomain] = securityDomain.map(AttributeValue.string)
            attributes[.path] = path.map(AttributeValue.string)
            attributes[.protocol] = protocolCode.map { .string($0.text) }
            attributes[.authenticationType] = .string(authenticationType?.text ?? Self.defaultAuthenticationType)
        }
        return attributes
    }
}

extension ItemRequest {
    /// A request that matches exactly the stored item `result` describes: its whole primary key,
    /// access group and synchronizable flag included (macOS acts on the one item it found).
    static func exactly(_ result: ItemResult) -> ItemRequest {
        var request = ItemRequest(itemClass: result.itemClass)
        let attributes = result.attributes ?? [:]
        for attribute in AttributeCatalog.primaryKey(of: result.itemClass) where attribute != .synchronizable {
            request.attributes[attribute] = attributes[attribute] ?? attribute.emptyValue
        }
        request.synchronizable = .only(attributes[.synchronizable]?.integerValue == 1)
        return request
    }
}
