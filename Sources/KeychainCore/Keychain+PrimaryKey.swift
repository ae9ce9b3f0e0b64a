import Foundation

extension Keychain {
    /// Whether every criterion of `request` is a primary-key attribute (so a token match decides it).
    static func namesOnlyPrimaryKey(_ request: ItemRequest) -> Bool {
        guard request.hostOrSubdomain == nil && !request.caseInsensitive else { return false }
        let key = AttributeCatalog.primaryKey(of: request.itemClass)
        return request.attributes.isSubset(of: key)
    }

    /// The rows a query names when it gives every primary-key attribute except the access group
    /// and synchronizable flag, in row order: one point lookup on the unique index per access
    /// group and synchronizable value the query leaves open; nil when the query must read the
    /// class's rows. Callers run it inside a transaction, so all lookups see one snapshot.
    ///
    /// The synchronizable token is tried only when synchronizable items may exist: the first
    /// lookup reads that fact in the same statement (`KeychainStore.rowAndSynchronizableItems`),
    /// so a keychain without them costs one token and one lookup per group.
    func primaryKeyRows(
        for request: ItemRequest, context: AccessContext, in tx: KeychainStore.Transaction
    ) throws -> KeyedRows? {
        switch try keyedLookup(request, context: context, in: tx, singleStatement: false) {
        case .notKeyed: return nil
        case .rows(let rows): return rows
        case .needsTransaction: throw KeychainError(.internal, "a keyed lookup in a transaction asked for another")
        }
    }

    /// What a lookup by primary key finds for each token it tries.
    struct KeyedRows {
        /// The rows holding the query's tokens, in row order.
        var rows: [StoredRow] = []
        /// The tokens no row holds although the ledger names an item with them (their rows were
        /// removed behind the keychain's back) or cannot vouch that none has them: damage, not
        /// absence.
        var missingTokens: [Data] = []
    }

    private enum KeyedLookup {
        /// The query does not name the primary key.
        case notKeyed
        /// What the query's tokens find.
        case rows(KeyedRows)
        /// More than one statement is needed, and they must share a transaction.
        case needsTransaction
    }

    /// `primaryKeyRows`; with `singleStatement`, for a caller outside a transaction, only a lookup
    /// that one statement answers is made: anything more is `.needsTransaction`.
    private func keyedLookup(
        _ request: ItemRequest, context: AccessContext, in tx: KeychainStore.Transaction, singleStatement: Bool
    ) throws -> KeyedLookup {
        guard !request.caseInsensitive else { return .notKeyed }
        let attributes = request.attributes
        for attribute in PrimaryKeyEncoding.leadingMembers(of: request.itemClass)
        where !attributes.contains(attribute) {
            return .notKeyed
        }
        let groups: [String]
        if case .string(let group)? = attributes[.accessGroup] {
            groups = [group]
        } else if context.allowsAllGroups {
            if singleStatement { return .needsTransaction }
            groups = try tx.accessGroupNames()
        } else {
            groups = context.accessGroups
        }
        if singleStatement && groups.count > 1 { return .needsTransaction }
        // The synchronizable values to try: the one asked for, or both (false first).
        let onlyFlag: Bool?
        if case .only(let flag) = request.synchronizable { onlyFlag = flag } else { onlyFlag = nil }
        let encoding = PrimaryKeyEncoding(itemClass: request.itemClass, attributes: attributes)
        var found = KeyedRows()
        var synchronizableItemsMayExist: Bool?
        for group in groups {
            for flag in [false, true] where onlyFlag.map({ $0 == flag }) ?? (!flag || synchronizableItemsMayExist != false) {
                let token = try tx.primaryKeyToken(encoding, accessGroup: group, synchronizable: flag)
                let lookup = try tx.lookup(primaryKeyToken: token) { recorded in
                    // Outside a transaction the statement's snapshot decides the keys.
                    guard singleStatement else { return }
                    guard let recorded else {
                        throw KeychainError(.invalidKeychain, "the keychain's database does not name its keybag: it was altered")
                    }
                    try requireCurrentKeys(named: recorded)
                }
                if synchronizableItemsMayExist == nil {
                    synchronizableItemsMayExist = lookup.synchronizableItemsMayExist
                    if singleStatement && lookup.synchronizableItemsMayExist && onlyFlag == nil { return .needsTransaction }
                }
                if let row = lookup.row { found.rows.append(row) }
                if lookup.isMissing { found.missingTokens.append(token) }
            }
        }
        if found.rows.count > 1 { found.rows.sort { $0.rowID < $1.rowID } }
        return .rows(found)
    }

    /// `search` for a query that names exactly the primary key (nothing else but the access group
    /// and synchronizable flag); nil for other queries.
    ///
    /// The token proves what `forEachMatch` would check on the opened record: the primary-key
    /// values (encoded as compared), the access group (tokens are made only for the caller's
    /// groups) and the synchronizable flag. So the record is opened only to authenticate the
    /// row, which binds the token to the row's UUID, class and protection class (and through the
    /// UUID to its secret), and decoded only when attributes or a reference are asked for.
    /// Locked rows and damaged rows are treated as `forEachMatch` treats them: a locked row stops
    /// the search, and when no intact row was found but a damaged one was (its record or secret
    /// fails authentication, or it holds the token under another class) the search throws
    /// `errSecDecode`. A lookup that one statement answers (one access group, no synchronizable
    /// items) runs without a transaction around it.
    func searchByPrimaryKey(_ request: ItemRequest, context: AccessContext, limit: Int?) throws -> [ItemResult]? {
        guard request.persistentReference == nil, Self.namesOnlyPrimaryKey(request) else { return nil }
        let keyed: KeyedRows? = try store.snapshot { tx in
            switch try keyedLookup(request, context: context, in: tx, singleStatement: true) {
            case .notKeyed: return nil
            case .rows(let rows): return rows
            case .needsTransaction:
                return try tx.readTransaction { tx in
                    try requireCurrentKeys(in: tx)
                    return try primaryKeyRows(for: request, context: context, in: tx)
                }
            }
        }
        guard let keyed else { return nil }
        recordPlan(.primaryKey)
        let decodes = request.returns.contains(.attributes) || request.returns.contains(.reference)
        var results: [ItemResult] = []
        var foundDamage = !keyed.missingTokens.isEmpty
        for row in keyed.rows {
            // A token binds the class, so a row of another class holding it was altered.
            guard row.itemClass == request.itemClass else {
                foundDamage = true
                continue
            }
            let result: ItemResult?
            do {
                if decodes {
                    let record: ItemRecord
                    switch store.open(row) {
                    case .opened(let opened): record = opened
                    case .damaged:
                        foundDamage = true
                        continue
                    case .locked: throw KeychainError.classLocked
                    }
                    result = try makeResult(
                        record, row: row, returns: request.returns, reportingDamage: true,
                        reading: SecretReading(request, context: context))
                } else {
                    // The record is decoded only when it has an access control, which may guard
                    // the secret; otherwise opening it authenticates the row, as before.
                    switch store.open(row, unless: { try RecordCodec.value(of: .accessControl, in: $0) == nil }) {
                    case .opened(nil):
                        result = try makeKeyedResult(row, returns: request.returns)
                    case .opened(let record?):
                        result = try makeResult(
                            record, row: row, returns: request.returns, reportingDamage: true,
                            reading: SecretReading(request, context: context))
                    case .damaged:
                        foundDamage = true
                        continue
                    case .locked: throw KeychainError.classLocked
                    }
                }
            } catch let error as KeychainError where error.code == .decode {
                // The result builders report a secret that fails authentication as `errSecDecode`.
                foundDamage = true
                continue
            }
            if let result { results.append(result) }
            if let limit, results.count >= limit { break }
        }
        if results.isEmpty && foundDamage {
            throw KeychainError(.decode, "the item failed authentication: it was damaged or altered")
        }
        return results
    }

    /// `delete` for a query that names exactly the primary key, inside the caller's write
    /// transaction: the rows its tokens find are deleted without decoding their records (the
    /// token proves the match). Returns the number deleted; nil for other queries.
    ///
    /// As `forEachCandidate` with `lockedKeyMatches` and a `damaged` handler: a locked row is
    /// deleted (the index decides the match), and when every row found is damaged (it fails
    /// authentication, or holds the token under another class) those rows are deleted, so that
    /// the primary key can be used again.
    func deleteByPrimaryKey(_ request: ItemRequest, context: AccessContext, in tx: KeychainStore.Transaction) throws -> Int? {
        guard request.persistentReference == nil, Self.namesOnlyPrimaryKey(request),
            let keyed = try primaryKeyRows(for: request, context: context, in: tx)
        else { return nil }
        var intact: [Int64] = []
        var damaged: [Int64] = []
        for row in keyed.rows {
            guard row.itemClass == request.itemClass else {
                damaged.append(row.rowID)
                continue
            }
            switch store.authenticate(row) {
            case .opened, .locked:
                // A locked row is deleted all the same: its token decides the match.
                intact.append(row.rowID)
            case .damaged:
                damaged.append(row.rowID)
            }
        }
        guard intact.isEmpty else {
            for rowID in intact { try tx.delete(rowID: rowID) }
            return intact.count
        }
        // Only damage was found: damaged rows go, and so do the ledger's entries for items whose
        // rows were removed, so that the primary key can be used again.
        for rowID in damaged { try tx.delete(rowID: rowID) }
        for token in keyed.missingTokens { try tx.removeMissingItem(primaryKeyToken: token) }
        return damaged.count + keyed.missingTokens.count
    }

    /// `makeResult` for returns that need no attribute (data, persistent reference): built from
    /// the row alone; the secret in a buffer zeroed when released.
    ///
    /// - Throws: `errSecDecode` when the secret fails authentication.
    private func makeKeyedResult(_ row: StoredRow, returns: ReturnOptions) throws -> ItemResult? {
        var data: Data?
        if returns.contains(.data), let blob = row.secret {
            guard let secret = try readableSecretBytes(blob, of: row) else {
                throw KeychainError(.decode, "the item's secret failed authentication")
            }
            data = Data.zeroingCopy(of: secret)
        }
        return ItemResultBuilder(returns: returns).result(
            itemClass: row.itemClass, attributesOf: nil, data: data,
            persistentReference: PersistentReference(itemClass: row.itemClass, uuid: row.uuid),
            leavingOutItemsWithoutObject: true, reference: { _ in nil })
    }
}
