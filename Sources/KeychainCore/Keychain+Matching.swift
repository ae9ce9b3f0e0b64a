import Foundation
import KeychainCrypto

extension Keychain {
    /// Checks the request's explicit access group, and that the caller has any group at all.
    func checkSearchEntitlements(_ request: ItemRequest, context: AccessContext) throws {
        try context.requireAnyGroup()
        if let group = request.attributes[.accessGroup]?.stringValue { try context.requireEntitlement(to: group) }
    }

    /// Visits, in row order, every item of `request`'s class that the caller may see and that
    /// matches the request, until `visit` returns false.
    ///
    /// A persistent reference selects one row; a query naming the whole primary key (all but the
    /// access group and synchronizable flag) is answered from the unique index, trying each
    /// group and flag the query leaves open; anything else reads the class's rows.
    ///
    /// A damaged row is one whose sealed attributes fail authentication, or whose secret does
    /// (`visit` throws `errSecDecode`). When the class's rows are scanned, damaged rows are
    /// skipped, as Apple skips undecryptable items, so the rest of the keychain stays readable.
    /// When the lookup is keyed (a persistent reference, or the whole primary key, whose token
    /// names exactly one item per group and flag) and no intact candidate was visited, the caller
    /// named a damaged item and the lookup throws `errSecDecode`; except that rows found by a
    /// primary-key token (which binds the caller's access group) go to `damaged` when it is given:
    /// `SecItemDelete` removes them, so that the primary key can be used again.
    ///
    /// - Throws: `errSecInteractionNotAllowed` on meeting a row whose protection class is locked
    ///   before `visit` stops the walk: the row might match, and its attributes cannot be read
    ///   (Apple's query stops with the same status, `s3dl_query`).
    ///
    /// A scan that reads the whole class checks that it met as many rows as the ledger counts for
    /// the class: fewer means rows were removed behind the keychain's back (or their class was
    /// altered). As damaged rows are, missing ones are skipped when other items match, so the
    /// rest stays readable; but with `reportingMissing` (a search) a scan that matched nothing
    /// fails with `errSecDecode`, since the answer "no such item" may be the damage's. A
    /// `damaged` handler hears of them (`SecItemDelete` of a whole class ends the damage).
    func forEachMatch(
        _ request: ItemRequest, context: AccessContext, in tx: KeychainStore.Transaction,
        damaged: ((DamagedItem) throws -> Void)? = nil, reportingMissing: Bool = false,
        _ visit: (ItemRecord, StoredRow) throws -> Bool
    ) throws {
        try forEachCandidate(
            request, context: context, in: tx, lockedKeyMatches: false, damaged: damaged, reportingMissing: reportingMissing
        ) { record, row in
            try visit(record!, row)
        }
    }

    /// `forEachMatch`, except that with `lockedKeyMatches` a locked row found through the
    /// primary-key index by a query that names nothing but primary-key attributes is visited
    /// (with a nil record) instead of stopping the walk: the index alone proves that it matches.
    /// Deletes use this, as Apple deletes locked items its SQL selects.
    func forEachCandidate(
        _ request: ItemRequest, context: AccessContext, in tx: KeychainStore.Transaction, lockedKeyMatches: Bool,
        damaged: ((DamagedItem) throws -> Void)? = nil, reportingMissing: Bool = false,
        _ visit: (ItemRecord?, StoredRow) throws -> Bool
    ) throws {
        var damagedRows: [StoredRow] = []
        var missingTokens: [Data] = []
        var visited = false
        var examined = 0
        defer { planStatistics.withLock { $0.rowsExamined += examined } }
        /// `isCurrent`, for a row being scanned, checks its standing in the rollback ledger
        /// (by default with a statement of its own).
        func consider(
            _ row: StoredRow, keyed: Bool, decidedByKey: Bool, scanning: Bool = false,
            isCurrent: (() throws -> Bool)? = nil
        ) throws -> Bool {
            examined += 1
            var row = row
            // What the row shows in the clear rules it out before any key is needed, so a row of
            // a locked class that cannot match never stops the walk (Apple's query filters on its
            // clear `pdmn` column the same way).
            if scanning && Self.clearlyExcludes(row, request) { return true }
            let outcome: RowOutcome<ItemRecord?>
            if scanning {
                // A scan rules out most rows from their criteria before decoding them (nil: skipped),
                // and checks the rest in the rollback ledger: the criteria are judged on the row as
                // found, which opens only once it proves current.
                var candidate = row
                candidate.isCurrent = true
                switch store.open(candidate, unless: { try self.excludes($0, request) }) {
                case .opened(nil), .damaged: return true
                case .opened(let opened?):
                    row.isCurrent = try isCurrent?() ?? tx.isCurrent(row)
                    outcome = row.isCurrent ? .opened(opened) : .damaged
                case .locked: outcome = .locked
                }
            } else {
                outcome = store.open(row).map(Optional.some)
            }
            let record: ItemRecord
            switch outcome {
            case .opened(let opened?): record = opened
            case .opened(nil), .damaged:
                if keyed { damagedRows.append(row) }
                return true
            case .locked:
                guard lockedKeyMatches && decidedByKey else { throw KeychainError.classLocked }
                visited = true
                return try visit(nil, row)
            }
            // Synchronizable items cannot be fetched through persistent references (Apple's rule).
            if request.persistentReference != nil && record.isSynchronizable { return true }
            // A row found by the token of a query that names only the primary key matches it, in
            // one of the caller's groups: the token binds both, and the record authenticated it.
            guard decidedByKey || (context.isEntitled(to: record.accessGroup) && matches(record, request)) else {
                return true
            }
            do {
                let more = try visit(record, row)
                visited = true
                return more
            } catch let error as KeychainError where error.code == .decode {
                if keyed { damagedRows.append(row) }
                return true
            }
        }
        if let reference = request.persistentReference {
            recordPlan(.persistentReference)
            let row: StoredRow?
            switch reference.locator {
            case .uuid(let uuid): row = try tx.row(uuid: uuid)
            case .rowID(let rowID): row = try tx.row(rowID: rowID)
            }
            if let row, row.itemClass == request.itemClass { _ = try consider(row, keyed: true, decidedByKey: false) }
        } else if let keyed = try primaryKeyRows(for: request, context: context, in: tx) {
            recordPlan(.primaryKey)
            let keyOnly = Self.namesOnlyPrimaryKey(request)
            missingTokens = keyed.missingTokens
            for row in keyed.rows {
                // A token binds the class, so a row of another class holding it was altered.
                guard row.itemClass == request.itemClass else {
                    damagedRows.append(row)
                    continue
                }
                if try !consider(row, keyed: true, decidedByKey: keyOnly) { break }
            }
        } else if let tokens = try searchIndexTokens(for: request, in: tx) {
            // The index names every row that can match (and rows not indexed yet); each is
            // opened and matched in full, as in a scan.
            recordPlan(.searchIndex)
            var stopped = false
            let dangling = try tx.searchRows(itemClass: request.itemClass, tokens: tokens) { row, isCurrent in
                stopped = try withoutActuallyEscaping(isCurrent) { isCurrent in
                    try !consider(row, keyed: false, decidedByKey: false, scanning: true, isCurrent: isCurrent)
                }
                return !stopped
            }
            // An entry naming a row that is gone is the trace of a removed row that may have
            // matched: reported as a scan reports a class missing rows.
            guard !stopped, dangling > 0 else { return }
            if reportingMissing && !visited {
                throw KeychainError(.decode, "items of this class are missing from the keychain's database: it was damaged")
            }
            try damaged?(.missingRowsOfClass)
            return
        } else {
            recordPlan(.scan)
            var scanned: Int64 = 0
            var stopped = false
            try tx.scan(itemClass: request.itemClass) {
                scanned += 1
                stopped = try !consider($0, keyed: false, decidedByKey: false, scanning: true)
                return !stopped
            }
            guard !stopped else { return }
            let counted = try tx.ledgerRoot()?.count(of: request.itemClass)
            guard let counted, scanned >= counted else {
                if reportingMissing && !visited {
                    throw KeychainError(.decode, "items of this class are missing from the keychain's database: it was damaged")
                }
                try damaged?(.missingRowsOfClass)
                return
            }
            return
        }
        guard !visited, !damagedRows.isEmpty || !missingTokens.isEmpty else { return }
        guard let damaged, request.persistentReference == nil else {
            throw KeychainError(.decode, "the item failed authentication: it was damaged or altered")
        }
        for row in damagedRows { try damaged(.row(row)) }
        for token in missingTokens { try damaged(.missing(primaryKeyToken: token)) }
    }

    /// Damage a walk over candidates met, for a caller that removes it (`SecItemDelete`).
    enum DamagedItem {
        /// A row named exactly (by a token the caller may use) that fails authentication.
        case row(StoredRow)
        /// An item the ledger names by `primaryKeyToken` whose row was removed.
        case missing(primaryKeyToken: Data)
        /// A scan of the whole class met fewer rows than the ledger counts.
        case missingRowsOfClass
    }

    /// Every row of the stored classes in row order, for whole-keychain reads: a row whose class
    /// name was damaged belongs to no class and is left out, so it cannot hide the others.
    ///
    /// - Returns: the rows, and how many items the ledger counts that have no row (removed from
    ///   the database behind the keychain's back). When the ledger's root does not verify, the
    ///   counts are unknown and each class reports one missing item, so the damage is said.
    func readableRows(in tx: KeychainStore.Transaction) throws -> (rows: [StoredRow], missing: Int) {
        var rows: [StoredRow] = []
        var missing: Int64 = 0
        let root = try tx.ledgerRoot()
        for itemClass in ItemClass.stored {
            var scanned: Int64 = 0
            try tx.scan(itemClass: itemClass) { row in
                var row = row
                row.isCurrent = try tx.isCurrent(row)
                rows.append(row)
                scanned += 1
                return true
            }
            missing += max(0, (root?.count(of: itemClass) ?? scanned + 1) - scanned)
        }
        return (rows.sorted { $0.rowID < $1.rowID }, Int(missing))
    }

    /// Whether a row fails one of `request`'s criteria on what it stores in the clear: its
    /// protection class (`kSecAttrAccessible`), the only attribute kept outside the sealed record
    /// (an opened record's `pdmn` must equal it, so the answer is the same as after decrypting).
    static func clearlyExcludes(_ row: StoredRow, _ request: ItemRequest) -> Bool {
        guard case .string(let wanted)? = request.attributes[.accessible] else { return false }
        return wanted != row.keyClass
    }

    /// Whether an encoded record certainly fails one of `request`'s attribute criteria, judged
    /// from those attributes alone with `matches`' comparison (a record that passes is decoded
    /// and judged whole by `matches`).
    func excludes(_ encoded: UnsafeRawBufferPointer, _ request: ItemRequest) throws -> Bool {
        guard !request.caseInsensitive else { return false }
        for (attribute, wanted) in request.attributes {
            guard let stored = try RecordCodec.value(of: attribute, in: encoded),
                Self.equal(stored, wanted, kind: attribute.kind, caseInsensitive: false)
            else { return true }
        }
        return false
    }

    /// Whether `record` satisfies every criterion of `request`: each attribute equal as `equal`
    /// compares its kind (string attributes case-insensitively with `kSecMatchCaseInsensitive`),
    /// the synchronizable flag as asked (both kinds when the request does not mention it), the
    /// server under `kSecMatchHostOrSubdomainOfHost`. The secret is never a criterion.
    func matches(_ record: ItemRecord, _ request: ItemRequest) -> Bool {
        guard request.synchronizable.admits(record.isSynchronizable) else { return false }
        for (attribute, wanted) in request.attributes {
            guard let stored = record.attributes[attribute],
                Self.equal(stored, wanted, kind: attribute.kind, caseInsensitive: request.caseInsensitive)
            else { return false }
        }
        if let host = request.hostOrSubdomain {
            guard let server = record.attributes[.server]?.stringValue?.lowercased() else { return false }
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
            case (.string(let left), .string(let right)): return Self.sameUTF8(left, right)
            case (.data(let left), .data(let right)): return left == right
            default: return stored.comparableBytes == wanted.comparableBytes
            }
        default:
            return stored == wanted
        }
    }

    /// Whether two strings have the same UTF-8 bytes, compared in place (native strings are
    /// contiguous; `withUTF8` copies one that is not).
    static func sameUTF8(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        guard left.utf8.count == right.utf8.count else { return false }
        return left.withUTF8 { left in
            right.withUTF8 { right in left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
        }
    }

    /// Builds the parts of a result `returns` asks for. An item stored without data matches with
    /// no data part (Apple: the row's data result is NULL). When the item's secret fails
    /// authentication the item is left out (nil), as Apple leaves out undecryptable items, or, with
    /// `reportingDamage`, `errSecDecode` is thrown for `forEachMatch` to judge (skip in a scan,
    /// report in a keyed lookup). The secret is returned in a buffer zeroed when released.
    ///
    /// The secret of an item whose access control has constraints is read only when `reading`'s
    /// grant satisfies them (`mayReadSecret`: else the item is left out under `.skip`, or the
    /// search fails); without `reading` (a whole-keychain dump) such a secret is left out of the
    /// result.
    func makeResult(
        _ record: ItemRecord, row: StoredRow, returns: ReturnOptions, reportingDamage: Bool = false,
        reading: SecretReading? = nil
    ) throws -> ItemResult? {
        var returns = returns
        if returns.contains(.data), Self.guardedClasses.contains(record.itemClass), record.accessControl?.guardsSecret == true {
            if let reading {
                guard try reading.verifiesStorage
                    || mayReadSecret(of: record, authentication: reading.authentication, ui: reading.ui, context: reading.context)
                else { return nil }
            } else {
                returns.remove(.data)
            }
        }
        var data: Data?
        if returns.contains(.data), let blob = row.secret {
            guard let secret = try guardedSecretBytes(blob, of: row, record: record, password: reading?.authentication.applicationPassword)
            else {
                if reportingDamage { throw KeychainError(.decode, "the item's secret failed authentication") }
                return nil
            }
            data = Data.zeroingCopy(of: secret)
        }
        // An item whose data is not a key or certificate has no object; it is left out, as
        // Apple leaves out items it cannot turn into one.
        return try ItemResultBuilder(returns: returns).result(
            itemClass: record.itemClass, attributesOf: record, data: data,
            persistentReference: record.persistentReference, leavingOutItemsWithoutObject: true
        ) { data in
            let secret = try data ?? row.secret.flatMap { try referenceSecret($0, of: row, record: record, reading: reading) }
            return reference(of: record, secret: secret)
        }
    }

    /// The data a key's reference is made from: a key sealed under its application password
    /// opens only with the password `reading` brings (`errSecAuthFailed` when wrong); without
    /// one the key is left out under `.skip` (nil), else the search fails
    /// (`errSecInteractionNotAllowed` under `.fail`, `.authenticationNeeded` for the password).
    private func referenceSecret(_ blob: Data, of row: StoredRow, record: ItemRecord, reading: SecretReading?) throws -> Data? {
        guard KeychainStore.isPasswordSealed(blob) else { return try readableSecret(blob, of: row) }
        guard let reading else { return nil }
        guard let password = reading.authentication.applicationPassword else {
            switch reading.ui {
            case .skip: return nil
            case .fail: throw KeychainError(.interactionNotAllowed, "the key needs its application password and interaction is not allowed")
            case .allow: throw KeychainError(authenticationNeededFor: .applicationPassword)
            }
        }
        return try guardedSecretBytes(blob, of: row, record: record, password: password).map { Data.zeroingCopy(of: $0) }
    }

    /// What a request brings to read secrets that access control guards.
    struct SecretReading {
        let authentication: ItemAuthentication
        let ui: AuthenticationUI
        let context: AccessContext
        /// Whether user constraints are not checked: the engine verifying its own storage.
        let verifiesStorage: Bool

        init(_ request: ItemRequest, context: AccessContext) {
            authentication = request.authentication
            ui = request.authenticationUI
            self.context = context
            verifiesStorage = false
        }

        private init(verifying context: AccessContext) {
            authentication = ItemAuthentication()
            ui = .fail
            self.context = context
            verifiesStorage = true
        }

        /// The reading of the engine's own storage checks (an upgrade's verification).
        static func storageVerification(_ context: AccessContext) -> SecretReading { SecretReading(verifying: context) }
    }

    /// A row's secret; nil when it fails authentication (a damaged item is left out). A locked
    /// protection class is not damage: `errSecInteractionNotAllowed` propagates.
    func readableSecret(_ blob: Data, of row: StoredRow) throws -> Data? {
        try readableSecretBytes(blob, of: row).map { $0.withUnsafeBytes { Data($0) } }
    }

    /// `readableSecret` in a buffer zeroed on release.
    func readableSecretBytes(_ blob: Data, of row: StoredRow) throws -> SecureBytes? {
        switch store.openSecret(blob, sealedIn: row) {
        case .opened(let secret): return secret
        case .damaged: return nil
        case .locked: throw KeychainError.classLocked
        }
    }

    /// Applies an update to one item and writes it back.
    ///
    /// Replacing the access control of an item whose access control has constraints needs them
    /// satisfied as reading its secret does (`reading`), so an update cannot lift them.
    func apply(
        _ changes: ItemChanges, to original: ItemRecord, row: StoredRow, in tx: KeychainStore.Transaction,
        reading: SecretReading? = nil
    ) throws {
        var record = original
        record.attributes.merge(changes.attributes)
        if let synchronizable = changes.synchronizable { record.attributes[.synchronizable] = .integer(synchronizable ? 1 : 0) }
        if let policy = changes.accessControl {
            if let reading, original.accessControl?.userConstraints.isEmpty == false,
                try !mayReadSecret(of: original, authentication: reading.authentication, ui: reading.ui, context: reading.context)
            {
                throw KeychainError(.interactionNotAllowed, "the item needs authentication and interaction is not allowed")
            }
            record.accessControl = try currentBiometricBinding(for: policy)
            record.attributes[.accessible] = .string(policy.protection.rawValue)
        } else if let protection = changes.attributes[.accessible]?.stringValue.flatMap(Protection.init),
            let policy = record.accessControl
        {
            var changed = try AccessControlPolicy(protection: protection, flags: policy.flags)
            changed.biometricBinding = policy.biometricBinding
            record.accessControl = changed
        }
        if record.isSynchronizable {
            if record.protection.isThisDeviceOnly {
                throw KeychainError.param("a synchronizable item cannot use a ThisDeviceOnly accessibility")
            }
            if record.accessControl?.hasConstraints == true {
                throw KeychainError.param("an item with kSecAttrAccessControl is not synchronizable")
            }
            try ItemRequest.requireSynchronizable(tokenID: record.attributes[.tokenID])
        }
        if record.protection == .whenPasscodeSetThisDeviceOnly && original.protection != .whenPasscodeSetThisDeviceOnly {
            try requirePasscodeClass(in: tx)
        }
        let previous = record.attributes[.modificationDate].flatMap { value -> Date? in
            if case .date(let date) = value { return date }
            return nil
        } ?? .distantPast
        record.attributes[.modificationDate] = .date(max(Date(), previous.addingTimeInterval(0.001)))

        var secret = changes.secret
        let authentication = reading?.authentication ?? ItemAuthentication()
        if secret == nil, let blob = row.secret {
            // A secret the update keeps must open: a damaged one is `errSecDecode`; one sealed under
            // an application password needs the password.
            if KeychainStore.isPasswordSealed(blob) {
                guard let opened = try guardedSecretBytes(blob, of: row, record: original, password: authentication.applicationPassword)
                else { throw KeychainError(.decode, "the item failed authentication: it was damaged or altered") }
                secret = opened.withUnsafeBytes { Data($0) }
            } else {
                secret = try store.openSecret(blob, sealedIn: row).get().withUnsafeBytes { Data($0) }
            }
        }
        if secret != nil {
            record.sealingPassword = try sealingPassword(for: record, authentication: authentication, ui: reading?.ui ?? .fail)
        }
        defer { secret?.wipe() }
        record.attributes[.sha1] = .data(try digest(of: record, secret: secret))
        try tx.update(record, secret: secret, original: original, replacing: row)
    }

    /// The item digest Apple returns as `sha1`: SHA-1 over the item's attributes and data.
    func digest(of record: ItemRecord, secret: Data?) throws -> Data {
        var encoded = RecordCodec.digestInput(
            record.attributes, accessControl: record.accessControl?.serialized, secret: secret)
        defer { encoded.wipe() }
        return try Digest.sha1(encoded)
    }
}
