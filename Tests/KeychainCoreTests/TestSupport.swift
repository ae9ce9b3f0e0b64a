import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// Test vectors and fixtures under Tests/TestVectors.
enum TestVectors {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("TestVectors")

    static func json(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}

extension Data {
    /// Bytes from a hex string (test input only).
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// A keychain in a fresh temporary directory, opened through the engine.
///
/// When the test drops it, the process's registry lets the instance go (a test still holding
/// `keychain` keeps it, keys and all), so a run does not keep every test's database open: four
/// descriptors each, and Foundation's `Process.run`, which other suites call, misreads
/// `/proc/self/fd` with about a thousand open.
final class TemporaryKeychain: Sendable {
    let directory: String
    let keychain: Keychain

    deinit {
        Keychain.releaseOpenInstance(path: directory + "/test.keychain-db")
    }

    /// Options with cheap key derivations, for tests that do not measure them.
    static let options = KeychainOptions(passcodeIterations: 1_000, backupWorkFactor: 10)

    /// A keychain without a passcode.
    init(options: KeychainOptions = TemporaryKeychain.options) throws {
        directory = Self.newDirectory()
        keychain = try Keychain.open(path: directory + "/test.keychain-db", options: options)
    }

    /// A keychain created with `passcode` (unlocked, as after `create`).
    init(passcode: String, options: KeychainOptions = TemporaryKeychain.options) throws {
        directory = Self.newDirectory()
        keychain = try Keychain.create(path: directory + "/test.keychain-db", passcode: Data(passcode.utf8), options: options)
    }

    /// A fresh directory path (created by the keychain, 0700).
    static func newDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("kc-core-\(UUID().uuidString)").path
    }

    /// The same keychain as a new process would see it: this process's instance is forgotten
    /// (its keys dropped) and the keychain opened again.
    func reopened(options: KeychainOptions = TemporaryKeychain.options) throws -> Keychain {
        Keychain.forgetOpenInstance(path: keychain.path)
        return try Keychain.open(path: keychain.path, create: false, options: options)
    }

    /// The SQL that takes a database back to what schema 5 wrote: no search index (and no
    /// program registry, which schema 7 added).
    static let withoutSearchIndex =
        "DROP TABLE programs; DROP INDEX items_unindexed; DROP TABLE search_index; ALTER TABLE items DROP COLUMN idx; "

    /// Rewrites the database as schema version 5 wrote it: no search index.
    func rewriteAsVersion5() throws {
        let connection = try SQLiteConnection(path: keychain.path)
        try connection.writeTransaction {
            try connection.execute(Self.withoutSearchIndex + "PRAGMA user_version = 5")
        }
    }

    /// Rewrites the database as schema version 3 wrote it: every row sealed without a generation,
    /// no generation column and no rollback ledger.
    func rewriteAsVersion3() throws {
        let connection = try SQLiteConnection(path: keychain.path)
        try connection.writeTransaction {
            for row in try keychain.store.allRows(in: connection) {
                let record = try keychain.store.sealer.open(row).get()
                let secret = try row.secret.map {
                    try keychain.store.sealer.openSecret($0, sealedIn: row).get().withUnsafeBytes { Data($0) }
                }
                let legacy = try keychain.store.seal(record, secret: secret, generation: 0)
                try connection.statement("UPDATE items SET metadata = ?, secret = ? WHERE rowid = ?").bind([
                    .blob(legacy.metadata), legacy.secret.map(SQLiteValue.blob) ?? .null, .integer(row.rowID),
                ]).run()
            }
            try connection.execute(Self.withoutSearchIndex + "DROP TABLE ledger; ALTER TABLE items DROP COLUMN gen; PRAGMA user_version = 3")
        }
    }

    /// Copies the database (with its WAL) to `path`.
    func copyDatabase(to path: String) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: keychain.path + suffix) {
            try FileManager.default.copyItem(atPath: keychain.path + suffix, toPath: path + suffix)
        }
    }

    static let context = AccessContext(accessGroups: ["test.group"])

    /// Adds a generic password.
    @discardableResult
    func addPassword(
        service: String, account: String, secret: String, label: String? = nil, protection: Protection? = nil
    ) throws -> ItemResult? {
        try keychain.addPassword(service: service, account: account, secret: secret, label: label, protection: protection)
    }

    /// Finds a generic password's secret.
    func secret(service: String, account: String) throws -> Data? {
        try keychain.secret(service: service, account: account)
    }

    /// Exchanges a column's values between rows 1 and 2.
    func swapColumn(_ column: String) throws {
        try sql(
            """
            CREATE TEMP TABLE saved AS SELECT rowid AS r, \(column) AS v FROM items;
            UPDATE items SET \(column) = (SELECT v FROM saved WHERE r = 3 - items.rowid) WHERE rowid IN (1, 2);
            """)
    }

    /// Exchanges the values of `columns` between the rows with ids `first` and `second`.
    func swapColumns(_ columns: [String], _ first: Int64, _ second: Int64) throws {
        let connection = try SQLiteConnection(path: keychain.path)
        for column in columns {
            let read = "SELECT \(column) FROM items WHERE rowid = ?"
            let a = try connection.statement(read).bind([.integer(first)]).rows { $0.blob(0) ?? $0.text(0).map { Data($0.utf8) } }.first ?? nil
            let b = try connection.statement(read).bind([.integer(second)]).rows { $0.blob(0) ?? $0.text(0).map { Data($0.utf8) } }.first ?? nil
            let isText = column == "keyclass" || column == "class"
            func value(_ data: Data?) -> SQLiteValue {
                guard let data else { return .null }
                return isText ? .text(String(decoding: data, as: UTF8.self)) : .blob(data)
            }
            let write = "UPDATE items SET \(column) = ? WHERE rowid = ?"
            try connection.statement(write).bind([.blob(Data("placeholder-\(UUID())".utf8)), .integer(first)]).run()
            try connection.statement(write).bind([value(a), .integer(second)]).run()
            try connection.statement(write).bind([value(b), .integer(first)]).run()
        }
    }

    /// Every file of the keychain's directory: name and contents.
    func files() throws -> [(name: String, contents: Data)] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map {
            ($0, FileManager.default.contents(atPath: directory + "/" + $0) ?? Data())
        }
    }

    /// Inverts one bit of a blob column of one row.
    func flipByte(column: String, rowID: Int64, offset: Int) throws {
        let connection = try SQLiteConnection(path: keychain.path)
        var blob = try #require(try connection.statement("SELECT \(column) FROM items WHERE rowid = ?").bind([.integer(rowID)]).rows { $0.blob(0) }.first ?? nil)
        blob[blob.startIndex + offset] ^= 0x01
        try connection.statement("UPDATE items SET \(column) = ? WHERE rowid = ?").bind([.blob(blob), .integer(rowID)]).run()
    }

    /// Runs SQL on the database directly (to tamper with it).
    func sql(_ statement: String) throws {
        let connection = try SQLiteConnection(path: keychain.path)
        try connection.execute(statement)
    }
}

extension Keychain {
    /// Adds a generic password in `TemporaryKeychain.context`.
    @discardableResult
    func addPassword(
        service: String, account: String, secret: String, label: String? = nil, protection: Protection? = nil
    ) throws -> ItemResult? {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string(service)
        request.attributes["acct"] = .string(account)
        if let label { request.attributes["labl"] = .string(label) }
        if let protection { request.attributes["pdmn"] = .string(protection.rawValue) }
        request.secret = Data(secret.utf8)
        request.returns = [.persistentReference]
        return try add(request, context: TemporaryKeychain.context)
    }

    /// A generic password's secret, found by service and account.
    func secret(service: String, account: String) throws -> Data? {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string(service)
        request.attributes["acct"] = .string(account)
        request.returns = [.data]
        return try search(request, context: TemporaryKeychain.context).first?.data
    }

    /// Every generic password's secret, as text, in row order.
    func allSecrets() throws -> [String] {
        var request = ItemRequest(itemClass: .genericPassword)
        request.returns = [.data]
        request.matchLimit = .all
        return try search(request, context: TemporaryKeychain.context).map { String(decoding: $0.data ?? Data(), as: UTF8.self) }
    }

    /// Changes a generic password's label.
    func relabel(service: String, account: String, to label: String) throws {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string(service)
        request.attributes["acct"] = .string(account)
        var changes = ItemChanges()
        changes.attributes["labl"] = .string(label)
        try update(request, changes: changes, context: TemporaryKeychain.context)
    }

    /// Deletes generic passwords by service and, when given, account.
    @discardableResult
    func deletePasswords(service: String, account: String? = nil) throws -> Int {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string(service)
        if let account { request.attributes["acct"] = .string(account) }
        return try delete(request, context: TemporaryKeychain.context)
    }
}

/// A clock tests move by hand.
final class ManualClock: KeychainClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) {
        lock.lock()
        current += seconds
        lock.unlock()
    }
}

/// The status an engine call threw, or nil when it succeeded.
func status(of body: () throws -> Void) -> KeychainError.Code? {
    do {
        try body()
        return nil
    } catch let error as KeychainError {
        return error.code
    } catch {
        return .internal
    }
}

/// Tests name attributes by Apple's short names, as the dictionaries they mirror do: a string
/// literal stands for the catalog descriptor with that short name (`request.attributes["svce"]`,
/// `["acct": .string("me")]`), so test code reads like the SecItem dictionaries it checks.
extension AttributeDescriptor: ExpressibleByStringLiteral {
    public convenience init(stringLiteral name: String) {
        guard let attribute = AttributeCatalog.descriptor(named: name) else { preconditionFailure("no attribute \(name)") }
        self.init(
            attribute.ordinal, attribute.name, attribute.constant, attribute.kind, classes: attribute.classes,
            primaryKeyOf: attribute.primaryKeyOf, maintainer: attribute.maintainer)
    }
}

/// Descriptors order and print by short name, as the dictionaries' keys they replace did.
extension AttributeDescriptor: Comparable, CustomStringConvertible {
    public static func < (lhs: AttributeDescriptor, rhs: AttributeDescriptor) -> Bool { lhs.name < rhs.name }
    public var description: String { name }
}
