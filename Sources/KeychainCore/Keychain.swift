import Foundation
import Synchronization

/// One keychain: an encrypted SQLite store and the SecItem semantics over it.
///
/// Instances are shared per path within a process and are safe to use from many threads; many
/// processes may use one keychain at once (SQLite WAL, `BEGIN IMMEDIATE` writes, bounded waits).
public final class Keychain: Sendable {
    /// The database file.
    public let path: String
    let store: KeychainStore
    let sealer: ItemSealer

    private static let openKeychains = Mutex<[String: Keychain]>([:])

    /// The keychain at `path`, opened once per process.
    ///
    /// - Parameter create: whether to create it if absent; otherwise a missing keychain is
    ///   `errSecNoSuchKeychain`.
    public static func open(path: String, create: Bool = true) throws -> Keychain {
        if let open = openKeychains.withLock({ $0[path] }) { return open }
        if !create && !FileSystem.exists(path) {
            throw KeychainError(.noSuchKeychain, "the specified keychain could not be found")
        }
        let keychain = try Keychain(path: path)
        return openKeychains.withLock { open in
            if let existing = open[path] { return existing }
            open[path] = keychain
            return keychain
        }
    }

    /// The default keychain (`KeychainLocation.defaultKeychainPath`), created on first use.
    public static func openDefault() throws -> Keychain {
        try open(path: KeychainLocation.defaultKeychainPath)
    }

    private init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        try FileSystem.makePrivateDirectory(directory)
        try FileSystem.requireNotWritableByOthers(directory)
        let keys = try KeychainKeys.loadOrCreate(at: KeychainLocation.keyFilePath(forDatabase: path))
        sealer = ItemSealer(keys: keys)
        store = try KeychainStore(path: path)
        let check = try keys.keyCheck()
        let stored = try store.withConnection { connection in
            try connection.writeTransaction { try store.establishValue(check, forKey: "key-check", in: connection) }
        }
        guard stored == check else {
            throw KeychainError(.invalidKeychain, "the key file does not belong to this keychain")
        }
    }

    // MARK: - SecItemAdd

    /// Adds the item `request` describes (`SecItemAdd`).
    ///
    /// - Returns: the requested result parts, or nil when nothing was requested.
    /// - Throws: `errSecDuplicateItem`, `errSecMissingEntitlement`, `errSecAuthFailed` (a
    ///   passcode-only item with no passcode set), `errSecParam`, storage errors.
    public func add(_ request: ItemRequest, context: AccessContext) throws -> ItemResult? {
        var (record, row) = try prepareAdd(request, context: context)
        try store.withConnection { connection in
            try connection.writeTransaction {
                record.rowID = try store.insert(row, in: connection)
                try registerAccessGroup(record.accessGroup, in: connection)
            }
        }
        guard !request.returns.isEmpty else { return nil }
        var result = ItemResult(itemClass: record.itemClass)
        if request.returns.contains(.attributes) {
            result.attributes = record.attributes
            result.accessControl = record.accessControl
        }
        if request.returns.contains(.data) { result.data = request.secret ?? Data() }
        if request.returns.contains(.persistentReference) { result.persistentReference = record.persistentReference.data }
        return result
    }

    // MARK: - SecItemCopyMatching

    /// Finds the items `request` describes (`SecItemCopyMatching`).
    ///
    /// - Returns: at least one result.
    /// - Throws: `errSecItemNotFound` when nothing matches, `errSecDecode` when the query names a
    ///   damaged item exactly (`forEachMatch`), `errSecMissingEntitlement`, storage errors.
    public func search(_ request: ItemRequest, context: AccessContext) throws -> [ItemResult] {
        try requireReferenceSupport(request)
        try checkSearchEntitlements(request, context: context)
        let limit = (request.matchLimit ?? .one).maximum
        if limit == 0 { throw KeychainError(.itemNotFound, "a match limit of 0 matches nothing") }
        if request.itemClass == .identity {
            return try searchIdentities(request, context: context, limit: limit)
        }
        let results: [ItemResult] = try store.withConnection { connection in
            try connection.readTransaction {
                var results: [ItemResult] = []
                try forEachMatch(request, context: context, in: connection) { record, row in
                    if let result = try makeResult(record, row: row, returns: request.returns, reportingDamage: true) {
                        results.append(result)
                    }
                    return limit.map { results.count < $0 } ?? true
                }
                return results
            }
        }
        guard !results.isEmpty else { throw KeychainError(.itemNotFound, "no item matched the query") }
        return results
    }

    /// `kSecReturnRef` for a class whose items are objects (`SecKey`, `SecCertificate`,
    /// `SecIdentity`) needs those objects, which arrive with issue 4: until then such a request is
    /// `errSecUnimplemented`, not a success without the object the caller goes on to use.
    func requireReferenceSupport(_ request: ItemRequest) throws {
        if request.returns.contains(.reference) && request.itemClass.hasReferenceType {
            throw KeychainError(
                .unimplemented, "kSecReturnRef for \(request.itemClass.constantName) arrives with the certificate and key support")
        }
    }

    // MARK: - SecItemUpdate

    /// Applies `changes` to every item `request` matches (`SecItemUpdate`), in one transaction:
    /// if any item cannot be changed, none is.
    ///
    /// - Throws: `errSecItemNotFound`, `errSecDuplicateItem` (nothing changed), `errSecParam`,
    ///   `errSecMissingEntitlement`, `errSecDecode` (a damaged item named exactly, or whose secret
    ///   the update keeps).
    public func update(_ request: ItemRequest, changes: ItemChanges, context: AccessContext) throws {
        try checkSearchEntitlements(request, context: context)
        if let group = changes.attributes["agrp"]?.stringValue { try context.requireEntitlement(to: group) }
        if request.itemClass == .identity {
            try updateIdentities(request, changes: changes, context: context)
            return
        }
        try store.withConnection { connection in
            try connection.writeTransaction {
                var matches: [(ItemRecord, StoredRow)] = []
                try forEachMatch(request, context: context, in: connection) { record, row in
                    matches.append((record, row))
                    return true
                }
                guard !matches.isEmpty else { throw KeychainError(.itemNotFound, "no item matched the query") }
                for (record, row) in matches {
                    try apply(changes, to: record, row: row, in: connection)
                }
            }
        }
    }

    // MARK: - SecItemDelete

    /// Deletes every item `request` matches (`SecItemDelete`).
    ///
    /// - Returns: the number of items deleted (at least one).
    /// - Throws: `errSecItemNotFound`, `errSecMissingEntitlement`, storage errors.
    @discardableResult
    public func delete(_ request: ItemRequest, context: AccessContext) throws -> Int {
        try checkSearchEntitlements(request, context: context)
        if request.itemClass == .identity {
            return try deleteIdentities(request, context: context)
        }
        return try store.withConnection { connection in
            try connection.writeTransaction {
                var rowIDs: [Int64] = []
                // A damaged item named by its whole primary key is removed too (docs/reliability.md).
                try forEachMatch(request, context: context, in: connection, damaged: { rowIDs.append($0.rowID) }) {
                    record, _ in
                    rowIDs.append(record.rowID)
                    return true
                }
                guard !rowIDs.isEmpty else { throw KeychainError(.itemNotFound, "no item matched the query") }
                for rowID in rowIDs { try store.delete(rowID: rowID, in: connection) }
                return rowIDs.count
            }
        }
    }

    // MARK: - Whole keychain

    /// Every item the caller may see, with attributes and (if asked) secrets, in row order; items
    /// that fail authentication are skipped. Used by `security dump-keychain`.
    public func allItems(context: AccessContext, includingData: Bool) throws -> [ItemResult] {
        try store.withConnection { connection in
            try connection.readTransaction {
                try readableRows(in: connection).compactMap { row in
                    guard let record = try? sealer.openRecord(row), context.isEntitled(to: record.accessGroup) else {
                        return nil
                    }
                    var returns: ReturnOptions = [.attributes, .persistentReference]
                    if includingData { returns.insert(.data) }
                    return try makeResult(record, row: row, returns: returns)
                }
            }
        }
    }
}
