import Foundation

/// A row as the store shows it without keys: its number, its class, its UUID, its primary-key
/// token and its generation.
/// The generation is one more at every write of the item (1 when added), is bound into both
/// sealed parts, and the rollback ledger names it, so a row is never opened at a generation other
/// than the one its last write gave it. Row numbers are never reused, and a restore inserts its
/// items as new rows (same UUID, generation 1, a new number). So a reader that kept what it saw
/// of an item at a (row, generation) knows, from these clear columns alone, that the item has
/// not changed since.
package struct ItemVersion: Hashable, Sendable {
    /// The row's number (never reused: the table's row ids only grow).
    package let rowID: Int64
    /// The item's class.
    package let itemClass: ItemClass
    /// The item's 16-byte identifier (drawn at random when it was added; never reused).
    package let uuid: Data
    /// The item's generation.
    package let generation: Int64
    /// The item's primary-key token (keyed: it says nothing of the primary key without the
    /// keybag), by which the rollback ledger knows the item.
    package let token: Data

    /// A version as a row shows it.
    package init(rowID: Int64, itemClass: ItemClass, uuid: Data, generation: Int64, token: Data) {
        self.rowID = rowID
        self.itemClass = itemClass
        self.uuid = uuid
        self.generation = generation
        self.token = token
    }
}

/// The rows of some classes as their clear columns show them (`Keychain.itemVersions(of:)`).
package struct ItemVersions: Sendable {
    /// Every row of the classes, in row order.
    package var versions: [ItemVersion]
    /// How many items of the classes the rollback ledger counts beyond the rows listed: rows
    /// removed from the database behind the keychain's back (or lost with its `-wal` file). At
    /// least 1 for each class when the ledger's root does not authenticate (it cannot say).
    package var missingRows: Int
}

/// What opening one synchronizable item by UUID found.
package enum OpenedSynchronizableItem {
    /// The item, its attributes and secret, with the version of the row read.
    case item(ItemResult, ItemVersion)
    /// A row that is not a synchronizable item (a local one), with the version of the row read.
    case local(ItemVersion)
    /// A synchronizable item of a group the caller lacks.
    case notVisible
    /// A row that does not open: altered, rolled back (the ledger names another generation) or
    /// whose secret fails authentication. Nothing can be said of its item.
    case damaged
}

extension Keychain {
    /// The row number, class, UUID, token and generation of every item of `classes`, from clear
    /// columns alone, with how many of their items the ledger counts beyond them, in one
    /// snapshot: no row is opened (`queryPlanStatistics.rowsExamined` does not move).
    package func itemVersions(of classes: [ItemClass]) throws -> ItemVersions {
        try reading { tx in
            let versions = try tx.itemVersions(of: classes)
            let root = try tx.ledgerRoot()
            var missing: Int64 = 0
            for itemClass in Set(classes) {
                let listed = Int64(versions.lazy.filter { $0.itemClass == itemClass }.count)
                missing += max(0, (root?.count(of: itemClass) ?? listed + 1) - listed)
            }
            return ItemVersions(versions: versions, missingRows: Int(missing))
        }
    }

    /// Of `rows` (rows seen before, each by UUID and primary-key token), the UUIDs of those whose
    /// rows are gone from the database while the rollback ledger still names an item with their
    /// token (or cannot say, being damaged there): rows removed behind the keychain's back, not
    /// items deleted through it. A delete through the keychain takes the item out of the ledger
    /// in the same transaction, so it is never among them; nor is a row still present, nor an
    /// item whose primary key another row holds now. Nothing is opened; each row gone costs one
    /// lookup by token.
    package func vanishedRows(_ rows: [(uuid: Data, token: Data)]) throws -> Set<Data> {
        guard !rows.isEmpty else { return [] }
        return try reading { tx in
            var vanished = Set<Data>()
            for row in rows where try tx.row(uuid: row.uuid) == nil {
                let lookup = try tx.lookup(primaryKeyToken: row.token)
                if lookup.row == nil, lookup.isMissing { vanished.insert(row.uuid) }
            }
            return vanished
        }
    }

    /// Up to how many rows `openSynchronizableItems` looks up one by one by UUID; more, and it
    /// reads their classes' rows in order instead, opening only those asked for.
    static let synchronizableLookupLimit = 64

    /// Opens the rows of `versions` (by UUID; the generation asked is not required: the row's
    /// own is reported) in one snapshot, each checked against the rollback ledger, and returns
    /// for each row found what it holds for the caller of `context`: a synchronizable item with
    /// its attributes and secret, a local item, a synchronizable item of another group, or a
    /// damaged row. A UUID whose row is gone
    /// is left out. Each row opened counts in `queryPlanStatistics.rowsExamined`.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when a row's protection class is locked, storage
    ///   errors.
    package func openSynchronizableItems(_ versions: [ItemVersion], context: AccessContext) throws -> [Data: OpenedSynchronizableItem] {
        guard !versions.isEmpty else { return [:] }
        var examined = 0
        defer { planStatistics.withLock { $0.rowsExamined += examined } }
        return try reading { tx in
            var rows: [StoredRow] = []
            if versions.count <= Self.synchronizableLookupLimit {
                for version in versions {
                    if let row = try tx.row(uuid: version.uuid), row.itemClass == version.itemClass { rows.append(row) }
                }
            } else {
                let wanted = Set(versions.map(\.uuid))
                for itemClass in Set(versions.map(\.itemClass)).sorted(by: { $0.rawValue < $1.rawValue }) {
                    try tx.scan(itemClass: itemClass) { row in
                        if wanted.contains(row.uuid) { rows.append(row) }
                        return true
                    }
                }
                for index in rows.indices { rows[index].isCurrent = try tx.isCurrent(rows[index]) }
            }
            var opened: [Data: OpenedSynchronizableItem] = [:]
            for row in rows {
                examined += 1
                let version = ItemVersion(
                    rowID: row.rowID, itemClass: row.itemClass, uuid: row.uuid, generation: row.generation, token: row.primaryKeyToken)
                let record: ItemRecord
                switch store.open(row) {
                case .opened(let value): record = value
                case .damaged:
                    opened[row.uuid] = .damaged
                    continue
                case .locked: throw KeychainError.classLocked
                }
                guard record.isSynchronizable else {
                    opened[row.uuid] = .local(version)
                    continue
                }
                guard context.isEntitled(to: record.accessGroup) else {
                    opened[row.uuid] = .notVisible
                    continue
                }
                var request = ItemRequest(itemClass: record.itemClass)
                request.synchronizable = .only(true)
                request.returns = [.attributes, .data]
                do {
                    guard let result = try makeResult(
                        record, row: row, returns: request.returns, reportingDamage: true,
                        reading: SecretReading(request, context: context))
                    else {
                        opened[row.uuid] = .damaged
                        continue
                    }
                    opened[row.uuid] = .item(result, version)
                } catch let error as KeychainError where error.code == .decode {
                    opened[row.uuid] = .damaged
                }
            }
            return opened
        }
    }

    /// `add(contentsOf:context:)`, returning each item as stored (its attributes as the add
    /// completed them, its secret) with its version, without reading anything back.
    ///
    /// - Returns: per request, in order, the stored item and its version.
    package func addReturningVersions(
        contentsOf requests: [ItemRequest], context: AccessContext
    ) throws -> [(version: ItemVersion, item: ItemResult)] {
        let records: [(record: ItemRecord, token: Data)] = try writing(sealing: { try requests.map { try prepareAdd($0, context: context) } }) { prepared, tx in
            if prepared.contains(where: { $0.record.protection == .whenPasscodeSetThisDeviceOnly }) {
                try requirePasscodeClass(in: tx)
            }
            let records = try tx.insert(contentsOf: prepared)
            return zip(records, prepared).map { (record: $0, token: $1.row.primaryKeyToken) }
        }
        let returns: ReturnOptions = [.attributes, .data]
        return zip(records, requests).compactMap { stored, request in
            let (record, token) = stored
            let result = ItemResultBuilder(returns: returns).result(
                itemClass: record.itemClass, attributesOf: record, data: request.secret ?? Data(),
                persistentReference: record.persistentReference, leavingOutItemsWithoutObject: false
            ) { _ in reference(of: record, secret: request.secret) }
            // A new row is at generation 1 (`KeychainStore.seal(newItem:secret:)`).
            return result.map {
                (ItemVersion(rowID: record.rowID, itemClass: record.itemClass, uuid: record.uuid, generation: 1, token: token), $0)
            }
        }
    }
}
