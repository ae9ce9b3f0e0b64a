import Foundation

@testable import KeychainCore

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
struct TemporaryKeychain {
    let directory: String
    let keychain: Keychain

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kc-core-\(UUID().uuidString)").path
        keychain = try Keychain.open(path: directory + "/test.keychain-db")
    }

    static let context = AccessContext(accessGroups: ["test.group"])

    /// Adds a generic password.
    @discardableResult
    func addPassword(service: String, account: String, secret: String, label: String? = nil) throws -> ItemResult? {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string(service)
        request.attributes["acct"] = .string(account)
        if let label { request.attributes["labl"] = .string(label) }
        request.secret = Data(secret.utf8)
        request.returns = [.persistentReference]
        return try keychain.add(request, context: Self.context)
    }

    /// Finds a generic password's secret.
    func secret(service: String, account: String) throws -> Data? {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string(service)
        request.attributes["acct"] = .string(account)
        request.returns = [.data]
        return try keychain.search(request, context: Self.context).first?.data
    }

    /// Exchanges a column's values between rows 1 and 2.
    func swapColumn(_ column: String) throws {
        try sql(
            """
            CREATE TEMP TABLE saved AS SELECT rowid AS r, \(column) AS v FROM items;
            UPDATE items SET \(column) = (SELECT v FROM saved WHERE r = 3 - items.rowid) WHERE rowid IN (1, 2);
            """)
    }

    /// Runs SQL on the database directly (to tamper with it).
    func sql(_ statement: String) throws {
        let connection = try SQLiteConnection(path: keychain.path)
        try connection.execute(statement)
    }
}
