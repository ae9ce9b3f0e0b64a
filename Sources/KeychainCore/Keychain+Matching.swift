import Foundation

extension Keychain {
    /// Checks the request's explicit access group, and that the caller has any group at all.
    func checkSearchEntitlements(_ request: ItemRequest, context: AccessContext) throws {
        try context.requireAnyGroup()
        if let group = request.attributes["agrp"]?.stringValue { try context.requireEntitlement(to: group) }
    }

    /// Visits, in row order, every item of `request`'s class that the caller may see and that
    /// matches the request, until `visit` returns false.
    ///
    /// A persistent reference selects one row; a query naming the whole primary key (all but the
    /// access group and synchronizable flag) is answered from the unique index, trying each
    /// group and flag the query leaves open; anything else reads the class's rows. Rows that fail
    /// authentication are skipped, as Apple skips undecryptable items.
    ///
    /// - Throws: `errSecInteractionNotAllowed` on meeting a row whose protection class is locked
    ///   before `visit` stops the walk: the row might match, and its attributes cannot be read
    ///   (Apple's query stops with the same status, `s3dl_query`).
    func forEachMatch(
        _ request: ItemRequest, context: AccessContext, in connection: SQLiteConnection,
        _ visit: (ItemRecord, StoredRow) throws -> Bool
    ) throws {
        try forEachCandidate(request, context: context, in: connection, lockedKeyMatches: false) { record, row in
            try visit(record!, row)
        }
    }

    /// `forEachMatch`, except that with `lockedKeyMatches` a locked row found through the
    /// primary-key index by a query that names nothing but primary-key attributes is visited
    /// (with a nil record) instead of stopping the walk: the index alone proves that it matches.
    /// Deletes use this, as Apple deletes locked items its SQL selects.
    func forEachCandidate(
        _ request: ItemRequest, context: AccessContext, in connection: SQLiteConnection, lockedKeyMatches: Bool,
        _ visit: (ItemRecord?, StoredRow) throws -> Bool
    ) throws {
        func consider(_ row: StoredRow, decidedByKey: Bool, scanning: Bool = false) throws -> Bool {
            guard row.itemClass == request.itemClass else { return true }
            let record: ItemRecord?
            do {
                // A scan rules out most rows from their criteria before decoding them (nil, as
                // for a row that fails authentication: skipped).
                record = try openIfAuthentic(row, unless: scanning ? { try self.excludes($0, request) } : nil)
            } catch let error as KeychainError where error.code == .interactionNotAllowed {
                if lockedKeyMatches && decidedByKey { return try visit(nil, row) }
                throw error
            }
            // A row found by the token of a query that names only the primary key matches it, in
            // one of the caller's groups: the token binds both, and the record authenticated it.
            guard let record, decidedByKey || (context.isEntitled(to: record.accessGroup) && matches(record, request))
            else { return true }
            return try visit(record, row)
        }
        if let reference = request.persistentReference {
            let row: StoredRow?
            switch reference.locator {
            case .uuid(let uuid): row = try store.row(uuid: uuid, in: connection)
            case .rowID(let rowID): row = try store.row(rowID: rowID, in: connection)
            }
            // Synchronizable items cannot be fetched through persistent references (seed 000).
            if let row, let record = try openIfAuthentic(row), !record.isSynchronizable {
                _ = try consider(row, decidedByKey: false)
            }
            return
        }
        if let rows = try primaryKeyRows(for: request, context: context, in: connection) {
            let keyOnly = Self.namesOnlyPrimaryKey(request)
            for row in rows where try !consider(row, decidedByKey: keyOnly) { return }
            return
        }
        try store.scan(itemClass: request.itemClass, in: connection) { try consider($0, decidedByKey: false, scanning: true) }
    }

    /// Opens a row's record; nil when the row fails authentication (it was altered: skipped, as
    /// Apple skips corrupt items).
    ///
    /// - Throws: `errSecInteractionNotAllowed` when the row's protection class is locked.
    func openIfAuthentic(_ row: StoredRow, unless excluded: ((UnsafeRawBufferPointer) throws -> Bool)? = nil) throws -> ItemRecord? {
        do {
            return try sealer.openRecord(row, unless: excluded)
        } catch let error as KeychainError where error.code == .interactionNotAllowed {
            throw error
        } catch {
            return nil
        }
    }

    /// Whether an encoded record certainly fails one of `request`'s attribute criteria, judged
    /// from those attributes alone with `matches`' comparison (a record that passes is decoded
    /// and judged whole by `matches`).
    func excludes(_ encoded: UnsafeRawBufferPointer, _ request: ItemRequest) throws -> Bool {
        guard !request.caseInsensitive else { return false }
        for (name, wanted) in request.attributes {
            guard let attribute = AttributeCatalog.attribute(named: name) else { return false }
            guard let stored = try RecordCodec.value(named: name, in: encoded),
                Self.equal(stored, wanted, kind: attribute.kind, caseInsensitive: false)
            else { return true }
        }
        return false
    }

    /// Whether `record` satisfies every criterion of `request` (spec §3.2 and D4, D5, D14).
    func matches(_ record: ItemRecord, _ request: ItemRequest) -> Bool {
        guard request.synchronizable.admits(record.isSynchronizable) else { return false }
        for (name, wanted) in request.attributes {
            guard let stored = record.attributes[name],
                let attribute = AttributeCatalog.attribute(named: name),
                Self.equal(stored, wanted, kind: attribute.kind, caseInsensitive: request.caseInsensitive)
            else { return false }
        }
        if let host = request.hostOrSubdomain {
            guard let server = record.attributes["srvr"]?.stringValue?.lowercased() else { return false }
            let host = host.lowercased()
            guard server == host || server.hasSuffix("." + host) else { return false }
        }
        return true
    }

    /// Apple's equality for an attribute kind: blob and data by bytes whatever the type,
    /// others by value; strings optionally compared case-insensitively.
    static func equal(_ stored: AttributeValue, _ wanted: AttributeValue, kind: AttributeKind, caseInsensitive: Bool) -> Bool {
        if caseInsensitive, case .string(let left) = stored, case .string(let right) = wanted {
            return left.compare(right, options: [.caseInsensitive]) == .orderedSame
        }
        switch kind {
        case .blob, .data, .digest:
            // The same bytes compared in place when both sides are text or both are data.
            switch (stored, wanted) {
            case (.string(let left), .string(let right)): return left.utf8.elementsEqual(right.utf8)
            case (.data(let left), .data(let right)): return left == right
            default: return stored.comparableBytes == wanted.comparableBytes
            }
        default:
            return stored == wanted
        }
    }

    /// Builds the parts of a result `returns` asks for; nil when the item's secret fails
    /// authentication (such items are left out, as Apple leaves out undecryptable items). An item
    /// stored without data matches with no data part (Apple: the row's data result is NULL).
    func makeResult(_ record: ItemRecord, row: StoredRow, returns: ReturnOptions) throws -> ItemResult? {
        var result = ItemResult(itemClass: record.itemClass)
        if returns.contains(.attributes) {
            var attributes = record.attributes
            attributes["tomb"] = .integer(0)
            attributes["musr"] = .data(Data())
            result.attributes = attributes
            result.accessControl = record.accessControl ?? (try? AccessControlPolicy(protection: record.protection, flags: []))
        }
        if returns.contains(.data) {
            if let blob = row.secret {
                guard let secret = try readableSecret(blob, of: row) else { return nil }
                result.data = secret
            }
        }
        if returns.contains(.persistentReference) { result.persistentReference = record.persistentReference.data }
        if returns.contains(.reference) && record.itemClass.hasReferenceType {
            let secret = try result.data ?? row.secret.flatMap { try readableSecret($0, of: row) }
            // An item whose data is not a key or certificate has no object; it is left out, as
            // Apple leaves out items it cannot turn into one.
            guard let reference = reference(itemClass: record.itemClass, attributes: record.attributes, secret: secret) else {
                return nil
            }
            result.reference = reference
        }
        return result
    }

    /// A row's secret; nil when it fails authentication (a damaged item is left out). A locked
    /// protection class is not damage: `errSecInteractionNotAllowed` propagates.
    func readableSecret(_ blob: Data, of row: StoredRow) throws -> Data? {
        do {
            return try sealer.openSecret(blob, of: row)
        } catch let error as KeychainError where error.code == .interactionNotAllowed {
            throw error
        } catch {
            return nil
        }
    }

    /// Applies an update to one item and writes it back.
    func apply(_ changes: ItemChanges, to original: ItemRecord, row: StoredRow, in connection: SQLiteConnection) throws {
        var record = original
        for (name, value) in changes.attributes { record.attributes[name] = value }
        if let synchronizable = changes.synchronizable { record.attributes["sync"] = .integer(synchronizable ? 1 : 0) }
        if let policy = changes.accessControl {
            record.accessControl = policy
            record.attributes["pdmn"] = .string(policy.protection.rawValue)
        } else if let protection = changes.attributes["pdmn"]?.stringValue.flatMap(Protection.init),
            let policy = record.accessControl
        {
            record.accessControl = try AccessControlPolicy(protection: protection, flags: policy.flags)
        }
        if record.isSynchronizable {
            if record.protection.isThisDeviceOnly {
                throw KeychainError.param("a synchronizable item cannot use a ThisDeviceOnly accessibility")
            }
            if record.accessControl?.hasConstraints == true {
                throw KeychainError.param("an item with kSecAttrAccessControl is not synchronizable")
            }
        }
        if record.protection == .whenPasscodeSetThisDeviceOnly && original.protection != .whenPasscodeSetThisDeviceOnly {
            try requirePasscodeClass(in: connection)
        }
        let previous = record.attributes["mdat"].flatMap { value -> Date? in
            if case .date(let date) = value { return date }
            return nil
        } ?? .distantPast
        record.attributes["mdat"] = .date(max(Date(), previous.addingTimeInterval(0.001)))

        var secret = changes.secret
        if secret == nil, let blob = row.secret {
            secret = try sealer.openSecret(blob, of: row)
        }
        defer { secret?.wipe() }
        record.attributes["sha1"] = .data(try digest(of: record, secret: secret))
        // A secret moves with its item to another protection class: it is sealed again.
        let resealSecret = changes.secret != nil || record.protection != original.protection
        // The row's token (authenticated with the record) stays while the primary key does.
        let keyUnchanged = AttributeCatalog.primaryKey(of: record.itemClass).allSatisfy {
            record.attributes[$0.name] == original.attributes[$0.name]
        }
        var random = try RandomDraw(count: RandomDraw.sealingCount(withSecret: resealSecret && secret != nil))
        var updated = try seal(
            record, secret: resealSecret ? secret : nil, token: keyUnchanged ? row.primaryKeyToken : nil, random: &random)
        if !resealSecret { updated.secret = row.secret }
        updated.rowID = row.rowID
        try store.update(updated, sameKey: keyUnchanged && updated.keyClass == row.keyClass, in: connection)
        if record.accessGroup != original.accessGroup { try registerAccessGroup(record.accessGroup, in: connection) }
    }

    /// Seals a record (and its secret, when given) into a row, under the keys of its protection class.
    ///
    /// - Throws: `errSecInteractionNotAllowed` when that class is locked.
    func seal(_ record: ItemRecord, secret: Data?) throws -> StoredRow {
        var random = try RandomDraw(count: RandomDraw.sealingCount(withSecret: secret != nil))
        return try seal(record, secret: secret, random: &random)
    }

    /// `seal`, taking its nonces and item key from `random` (`RandomDraw.sealingCount`); `token`,
    /// when given, is the record's primary-key token, already known.
    func seal(_ record: ItemRecord, secret: Data?, token knownToken: Data? = nil, random: inout RandomDraw) throws -> StoredRow {
        let token = try knownToken ?? sealer.primaryKeyToken(itemClass: record.itemClass, attributes: record.attributes)
        return StoredRow(
            rowID: record.rowID, itemClass: record.itemClass, keyClass: record.protection.rawValue, uuid: record.uuid,
            primaryKeyToken: token, metadata: try sealer.sealMetadata(record, token: token, random: &random),
            secret: try secret.map {
                try sealer.sealSecret(
                    $0, itemClass: record.itemClass, protection: record.protection, uuid: record.uuid, random: &random)
            }, isSynchronizable: record.isSynchronizable)
    }

    /// The item digest Apple returns as `sha1`: SHA-1 over the item's attributes and data.
    func digest(of record: ItemRecord, secret: Data?) throws -> Data {
        var encoded = RecordCodec.encode(
            record.attributes,
            replacing: [("sha1", nil), ("accc", record.accessControl.map { .data($0.serialized) }), ("v_Data", secret.map { .data($0) })])
        defer { encoded.wipe() }
        return try Digest.sha1(encoded)
    }

    /// Records `group` in the group table so `*` callers can find items by key.
    func registerAccessGroup(_ group: String, in connection: SQLiteConnection) throws {
        // The token and sealed name are made once per group and process; the insert is ignored
        // when the group is registered already (no page is written then).
        let entry: AccessGroupEntry
        if let known = accessGroupEntries.withLock({ $0[group] }) {
            entry = known
        } else {
            let token = try sealer.accessGroupToken(group)
            entry = AccessGroupEntry(token: token, sealedName: try sealer.sealAccessGroup(group, token: token))
            accessGroupEntries.withLock { $0[group] = entry }
        }
        try store.registerAccessGroup(token: entry.token, sealedName: entry.sealedName, in: connection)
    }

    /// Every access group that has (or had) items in this keychain.
    func knownAccessGroups(in connection: SQLiteConnection) throws -> [String] {
        try store.accessGroups(in: connection).compactMap { entry in
            try? sealer.openAccessGroup(entry.sealedName, token: entry.token)
        }
    }
}
