import Foundation
import KeychainCrypto
import Synchronization

/// Sealing, owned by the store: items are sealed under the keys of their protection class with
/// nonces and item keys from the store's own draws of the generator, and the group table's
/// entries are made here, so that the engine above hands the store records and gets records back.
extension KeychainStore {
    /// Seals a new item: draws its UUID, and the nonces and item key of its sealed parts, in one
    /// draw of the generator, and seals it at generation 1. Called outside any transaction, so
    /// the encryption does not hold the write lock; `Transaction.insert` stores the result.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when the item's protection class is locked.
    func seal(newItem record: ItemRecord, secret: Data?) throws -> SealedItem {
        var random = try RandomDraw(count: 16 + RandomDraw.sealingCount(withSecret: secret != nil))
        var record = record
        record.uuid = random.data(count: 16)
        return SealedItem(record: record, row: try seal(record, secret: secret, random: &random))
    }

    /// Seals a record (and its secret, when given) into a row at `generation` (1 for a new row),
    /// under the keys of its protection class.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when that class is locked.
    func seal(_ record: ItemRecord, secret: Data?, generation: Int64 = 1) throws -> StoredRow {
        var random = try RandomDraw(count: RandomDraw.sealingCount(withSecret: secret != nil))
        return try seal(record, secret: secret, generation: generation, random: &random)
    }

    /// `seal`, taking its nonces and item key from `random` (`RandomDraw.sealingCount`); `token`
    /// and `searchTokens`, when given, are the record's primary-key and search tokens, already
    /// known.
    func seal(
        _ record: ItemRecord, secret: Data?, token knownToken: Data? = nil, searchTokens knownSearchTokens: Data? = nil,
        generation: Int64 = 1, random: inout RandomDraw
    ) throws -> StoredRow {
        let token = try knownToken ?? sealer.primaryKeyToken(itemClass: record.itemClass, attributes: record.attributes)
        let searchTokens = try knownSearchTokens
            ?? sealer.searchTokens(itemClass: record.itemClass, attributes: record.attributes)
        return StoredRow(
            rowID: record.rowID, itemClass: record.itemClass, keyClass: record.protection.rawValue, uuid: record.uuid,
            primaryKeyToken: token,
            metadata: try sealer.sealMetadata(record, token: token, generation: generation, random: &random),
            secret: try secret.map { secret in
                if let password = record.sealingPassword {
                    return try sealer.sealSecret(
                        secret, itemClass: record.itemClass, protection: record.protection, uuid: record.uuid,
                        generation: generation, password: password)
                }
                return try sealer.sealSecret(
                    secret, itemClass: record.itemClass, protection: record.protection, uuid: record.uuid, generation: generation,
                    random: &random)
            }, isSynchronizable: record.isSynchronizable, generation: generation, searchTokens: searchTokens)
    }

    /// Seals `record` with a backed-up password-sealed secret (`ItemSealer.portablePasswordSecret`)
    /// at the generation the secret's password layer binds; the password layer is kept.
    ///
    /// - Throws: `errSecDecode` for a malformed secret; `errSecInteractionNotAllowed` when the
    ///   record's class is locked.
    func seal(_ record: ItemRecord, portablePasswordSecret portable: Data) throws -> StoredRow {
        let generation = try ItemSealer.generation(ofPortablePasswordSecret: portable)
        var random = try RandomDraw(count: RandomDraw.sealingCount(withSecret: false))
        var row = try seal(record, secret: nil, generation: generation, random: &random)
        row.secret = try sealer.sealPortablePasswordSecret(
            portable, itemClass: record.itemClass, protection: record.protection, uuid: record.uuid)
        return row
    }
}

extension KeychainStore.Transaction {
    /// Inserts a sealed item, records it in the ledger and registers its access group.
    ///
    /// - Returns: the item's record with its row id.
    /// - Throws: `errSecDuplicateItem` when an item with the same primary key exists.
    @discardableResult
    func insert(_ item: SealedItem) throws -> ItemRecord {
        var record = item.record
        record.rowID = try insert(item.row)
        try registerAccessGroup(record.accessGroup)
        return record
    }

    /// Seals `record` (which has its UUID) at generation 1 and inserts it as `insert(_:)` does,
    /// for a caller that must seal inside the transaction (a restore seals with the keys of the
    /// keybag it commits with).
    @discardableResult
    func insert(_ record: ItemRecord, secret: Data?) throws -> ItemRecord {
        try insert(SealedItem(record: record, row: store.seal(record, secret: secret)))
    }

    /// Inserts `record` with a backed-up password-sealed secret, as `insert(_:secret:)` does.
    @discardableResult
    func insert(_ record: ItemRecord, portablePasswordSecret portable: Data) throws -> ItemRecord {
        try insert(SealedItem(record: record, row: store.seal(record, portablePasswordSecret: portable)))
    }

    /// Seals every row of the protection classes `keyClasses` again, from the class keys `old`
    /// holds to those `new` holds (the keychain's keybag is being replaced). Rows that do not open
    /// with the old keys (damaged, or not the version the ledger names) are left as they are:
    /// they did not open before.
    func resealRows(protectedBy keyClasses: [String], from old: KeyRing, to new: KeyRing) throws {
        let source = ItemSealer(keyRing: old)
        let target = ItemSealer(keyRing: new)
        for rowID in try rowIDs(protectedBy: keyClasses) {
            guard let row = try row(rowID: rowID),
                let resealed = try? source.reseal(row, for: target)
            else { continue }
            try replaceSealedKeys(of: resealed)
        }
    }

    /// Inserts sealed items (all or, on the first failure, none: the caller's transaction rolls
    /// back), recording them in the ledger at once and registering each access group once.
    ///
    /// - Returns: the items' records with their row ids, in order.
    @discardableResult
    func insert(contentsOf items: [SealedItem]) throws -> [ItemRecord] {
        let rowIDs = try insert(contentsOf: items.map(\.row))
        var records: [ItemRecord] = []
        records.reserveCapacity(items.count)
        for (item, rowID) in zip(items, rowIDs) {
            var record = item.record
            record.rowID = rowID
            records.append(record)
        }
        for group in Set(items.map(\.record.accessGroup)).sorted() { try registerAccessGroup(group) }
        return records
    }

    /// Writes `record` (with `secret`) over `row`, the stored version of `original`, sealed at
    /// the next generation; registers the access group when it changed.
    ///
    /// The row's token (authenticated with the record) stays while the primary key does, and its
    /// search tokens while the indexed attributes do; when neither the key, the protection class
    /// nor the search tokens change, only the sealed parts are written. Both sealed parts bind the
    /// row's generation, which every write advances: the secret is sealed again even when it does
    /// not change.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when the record's protection class is locked;
    ///   `errSecDuplicateItem` when the new primary key is another item's.
    func update(_ record: ItemRecord, secret: Data?, original: ItemRecord, replacing row: StoredRow) throws {
        let keyUnchanged = AttributeCatalog.primaryKey(of: record.itemClass).allSatisfy {
            record.attributes[$0] == original.attributes[$0]
        }
        let indexedUnchanged = row.searchTokens != nil
            && AttributeCatalog.searchIndexed(of: record.itemClass).allSatisfy {
                record.attributes[$0] == original.attributes[$0]
            }
        var random = try RandomDraw(count: RandomDraw.sealingCount(withSecret: secret != nil))
        var updated = try store.seal(
            record, secret: secret, token: keyUnchanged ? row.primaryKeyToken : nil,
            searchTokens: indexedUnchanged ? row.searchTokens : nil, generation: row.generation + 1, random: &random)
        updated.rowID = row.rowID
        try update(updated, previous: row, sameKey: keyUnchanged && updated.keyClass == row.keyClass)
        if record.accessGroup != original.accessGroup { try registerAccessGroup(record.accessGroup) }
    }

    /// Records `group` in the group table so `*` callers can find items by key.
    func registerAccessGroup(_ group: String) throws {
        // The token and sealed name are made once per group and process; the insert is ignored
        // when the group is registered already (no page is written then).
        let entry: AccessGroupEntry
        if let known = store.accessGroupEntries.withLock({ $0[group] }) {
            entry = known
        } else {
            let token = try store.sealer.accessGroupToken(group)
            entry = AccessGroupEntry(token: token, sealedName: try store.sealer.sealAccessGroup(group, token: token))
            store.accessGroupEntries.withLock { $0[group] = entry }
        }
        try registerAccessGroup(token: entry.token, sealedName: entry.sealedName)
    }

    /// Every access group that has (or had) items in this keychain; a name that does not open
    /// (its entry was altered) is left out.
    func accessGroupNames() throws -> [String] {
        try accessGroups().compactMap { entry in
            try? store.sealer.openAccessGroup(entry.sealedName, token: entry.token)
        }
    }
}

/// An access group's row in the group table: its keyed token and its sealed name.
struct AccessGroupEntry: Sendable {
    let token: Data
    let sealedName: Data
}

/// Reading rows: the store opens what it reads with its keys, and tells a locked row from a
/// damaged one (`RowOutcome`). Opening needs no transaction: a keyed lookup opens the rows its
/// one statement found after the statement is done.
extension KeychainStore {
    /// Opens a row's attributes into a record.
    func open(_ row: StoredRow) -> RowOutcome<ItemRecord> { sealer.open(row) }

    /// `open`, except that `excluded` first sees the decrypted record (`RecordCodec` form) and,
    /// when it returns true, the record is not decoded and the opened value is nil.
    func open(_ row: StoredRow, unless excluded: ((UnsafeRawBufferPointer) throws -> Bool)?) -> RowOutcome<ItemRecord?> {
        sealer.open(row, unless: excluded)
    }

    /// Checks that a row's sealed attributes open, without decoding them.
    func authenticate(_ row: StoredRow) -> RowOutcome<Void> { sealer.authenticate(row) }

    /// Opens `blob`, the sealed secret of `row`, into a buffer zeroed on release.
    func openSecret(_ blob: Data, sealedIn row: StoredRow) -> RowOutcome<SecureBytes> {
        sealer.openSecret(blob, sealedIn: row)
    }

    /// Whether `blob` is a secret sealed under an application password.
    static func isPasswordSealed(_ blob: Data) -> Bool { ItemSealer.isPasswordSealed(blob) }

    /// The password-sealed secret `blob` of `row` without its class-key layer, for a backup
    /// (`ItemSealer.portablePasswordSecret`).
    func portablePasswordSecret(_ blob: Data, sealedIn row: StoredRow) -> RowOutcome<Data> {
        sealer.portablePasswordSecret(blob, sealedIn: row)
    }

    /// Opens `blob`, a secret sealed under an application password, with `password`
    /// (`ItemSealer.openPasswordSecret`).
    func openPasswordSecret(_ blob: Data, sealedIn row: StoredRow, password: SecureBytes?) throws -> SecureBytes? {
        try sealer.openPasswordSecret(blob, sealedIn: row, password: password)
    }
}

/// The tokens a transaction looks rows up by, made with the store's index keys.
extension KeychainStore.Transaction {
    /// The primary-key token of `encoding` in `accessGroup` with the synchronizable flag.
    func primaryKeyToken(_ encoding: PrimaryKeyEncoding, accessGroup: String, synchronizable: Bool) throws -> Data {
        try store.sealer.primaryKeyToken(encoding, accessGroup: accessGroup, synchronizable: synchronizable)
    }

    /// The search-index token of one attribute's value.
    func searchToken(itemClass: ItemClass, attribute: AttributeDescriptor, value: AttributeValue) throws -> Data {
        try store.sealer.searchToken(itemClass: itemClass, attribute: attribute, value: value)
    }

    /// Enters `record`, opened from its row, into the search index.
    func index(_ record: ItemRecord) throws {
        try setSearchTokens(store.sealer.searchTokens(itemClass: record.itemClass, attributes: record.attributes), of: record.rowID)
    }
}
