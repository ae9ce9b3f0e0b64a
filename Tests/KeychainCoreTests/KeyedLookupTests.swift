import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// Lookups by primary key: one token per access group while no synchronizable item exists, the
/// record that one does (kept in the database, so never stale in another process), and the
/// version 2 → 3 schema upgrade that introduced it.
@Suite("Keyed lookups and the synchronizable-items record")
struct KeyedLookupTests {
    static let context = TemporaryKeychain.context

    /// A generic password with `service` and `account`, synchronizable or not.
    static func item(_ service: String, _ account: String, synchronizable: Bool? = nil, secret: String? = nil) -> ItemRequest {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string(service)
        request.attributes["acct"] = .string(account)
        if let synchronizable { request.synchronizable = .only(synchronizable) }
        request.secret = secret.map { Data($0.utf8) }
        return request
    }

    /// The secrets a lookup by key finds (synchronizable flag unspecified, so both kinds match).
    static func secrets(_ keychain: Keychain, _ service: String, _ account: String, limit: MatchLimit = .all) throws -> [String] {
        var request = item(service, account)
        request.returns = [.data]
        request.matchLimit = limit
        return try keychain.search(request, context: context).map { String(decoding: $0.data ?? Data(), as: UTF8.self) }
    }

    /// The record that synchronizable items exist, as the ledger's root holds it.
    static func marker(_ keychain: Keychain) throws -> Bool {
        let connection = try SQLiteConnection(path: keychain.path)
        return try #require(try keychain.store.ledgerRoot(in: connection)).synchronizableItems
    }

    @Test("a keychain records that it holds synchronizable items when the first one is written, by add or update")
    func markerWrittenWithFirstSynchronizableItem() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        _ = try keychain.add(Self.item("svc", "plain", secret: "p"), context: Self.context)
        #expect(try !Self.marker(keychain))
        var changes = ItemChanges()
        changes.synchronizable = true
        try keychain.update(Self.item("svc", "plain"), changes: changes, context: Self.context)
        #expect(try Self.marker(keychain))
        #expect(try Self.secrets(keychain, "svc", "plain") == ["p"])

        let other = try TemporaryKeychain()
        _ = try other.keychain.add(Self.item("svc", "synced", synchronizable: true, secret: "s"), context: Self.context)
        #expect(try Self.marker(other.keychain))
    }

    @Test("a synchronizable item added by another process is found by key at once, in row order with the other kind")
    func synchronizableItemFromAnotherProcess() throws {
        let temporary = try TemporaryKeychain()
        let first = temporary.keychain
        _ = try first.add(Self.item("svc", "acct", synchronizable: false, secret: "local"), context: Self.context)
        #expect(try Self.secrets(first, "svc", "acct") == ["local"])
        let second = try Keychain.openSeparately(path: first.path, options: TemporaryKeychain.options)
        _ = try second.add(Self.item("svc", "acct", synchronizable: true, secret: "synced"), context: Self.context)
        #expect(try Self.secrets(first, "svc", "acct") == ["local", "synced"])
        #expect(try Self.secrets(first, "svc", "acct", limit: .one) == ["local"])
        var syncedOnly = Self.item("svc", "acct", synchronizable: true)
        syncedOnly.returns = [.data]
        #expect(try first.search(syncedOnly, context: Self.context).first?.data == Data("synced".utf8))
    }

    @Test("deleting every item keeps the record; a restore replaces it with its items' own")
    func markerAfterDeleteAndRestore() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        _ = try keychain.add(Self.item("svc", "plain", secret: "p"), context: Self.context)
        let backup = temporary.directory + "/plain.backup"
        _ = try keychain.backup(to: backup, password: Data("pw".utf8))
        _ = try keychain.add(Self.item("svc", "synced", synchronizable: true, secret: "s"), context: Self.context)
        try keychain.delete(Self.item("svc", "synced"), context: Self.context)
        #expect(try Self.marker(keychain))
        _ = try keychain.restore(from: backup, password: Data("pw".utf8))
        #expect(try !Self.marker(keychain))
        #expect(try Self.secrets(keychain, "svc", "plain") == ["p"])
    }

    @Test("a version-2 keychain is upgraded: its synchronizable items stay findable by key, its index is replaced")
    func upgradeFromVersion2() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        _ = try keychain.add(Self.item("svc", "synced", synchronizable: true, secret: "s"), context: Self.context)
        _ = try keychain.add(Self.item("svc", "plain", secret: "p"), context: Self.context)
        // Make the file what version 2 wrote: rows without generations, no record of
        // synchronizable items, every row's protection class indexed.
        try temporary.rewriteAsVersion3()
        try temporary.sql(
            """
            DELETE FROM keychain WHERE key = 'synchronizable-items';
            DROP INDEX items_of_passcode_class;
            CREATE INDEX items_by_keyclass ON items(keyclass);
            CREATE INDEX items_by_class ON items(class, rowid);
            PRAGMA user_version = 2;
            """)
        let upgraded = try temporary.reopened()
        #expect(try KeychainStore.version(in: SQLiteConnection(path: upgraded.path)) == KeychainStore.schemaVersion)
        #expect(try Self.marker(upgraded))
        #expect(try Self.secrets(upgraded, "svc", "synced") == ["s"])
        #expect(try Self.secrets(upgraded, "svc", "plain") == ["p"])
        let indexes = try SQLiteConnection(path: upgraded.path)
            .statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items' AND sql IS NOT NULL ORDER BY name")
            .rows { $0.text(0) ?? "" }
        #expect(indexes == ["items_of_passcode_class", "items_unindexed"])
    }

    @Test("an empty version-2 keychain is upgraded without the record, so its lookups make one token")
    func upgradeEmptyFromVersion2() throws {
        let temporary = try TemporaryKeychain()
        try temporary.rewriteAsVersion3()
        try temporary.sql(
            """
            DROP INDEX items_of_passcode_class;
            CREATE INDEX items_by_keyclass ON items(keyclass);
            PRAGMA user_version = 2;
            """)
        let upgraded = try temporary.reopened()
        #expect(try !Self.marker(upgraded))
    }

    @Test("a keychain written by a newer schema is refused")
    func newerSchemaRefused() throws {
        let temporary = try TemporaryKeychain()
        try temporary.sql("PRAGMA user_version = \(KeychainStore.schemaVersion + 1)")
        Keychain.forgetOpenInstance(path: temporary.keychain.path)
        #expect(throws: KeychainError.self) { try Keychain.open(path: temporary.keychain.path, create: false, options: TemporaryKeychain.options) }
    }

    @Test("a data-only lookup by key authenticates the row: a swapped token or damaged attributes give errSecDecode, never the other secret")
    func dataLookupAuthenticatesRow() throws {
        let temporary = try TemporaryKeychain()
        let keychain = temporary.keychain
        _ = try keychain.add(Self.item("svc", "one", secret: "first"), context: Self.context)
        _ = try keychain.add(Self.item("svc", "two", secret: "second"), context: Self.context)
        try temporary.swapColumns(["pk"], 1, 2)
        let damaged = KeychainError(.decode, "the item failed authentication: it was damaged or altered")
        #expect(throws: damaged) { try Self.secrets(keychain, "svc", "one") }
        #expect(throws: damaged) { try Self.secrets(keychain, "svc", "two") }
        try temporary.swapColumns(["pk"], 1, 2)
        #expect(try Self.secrets(keychain, "svc", "one") == ["first"])
        try temporary.flipByte(column: "metadata", rowID: 1, offset: 20)
        #expect(throws: damaged) { try Self.secrets(keychain, "svc", "one") }
        #expect(try Self.secrets(keychain, "svc", "two") == ["second"])
    }
}
