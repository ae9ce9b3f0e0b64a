import Foundation
import KeychainCore
import Security

/// The items a benchmark keychain holds: realistic generic passwords with 8–64 byte secrets.
enum Workload {
    /// Items per service and per label: a search by either returns this many at every size.
    static let groupSize = 100
    /// The number of items of the keychain being measured (set before populating it).
    nonisolated(unsafe) static var itemCount = 1000
    /// Services: item `index` belongs to service `index mod (itemCount / groupSize)`.
    static func service(_ index: Int) -> String { "com.example.app\(index % max(1, itemCount / groupSize))" }
    static func account(_ index: Int) -> String { "user\(index)@example.com" }
    /// Labels: `groupSize` consecutive items share one.
    static func label(_ index: Int) -> String { "Label \(index / groupSize)" }
    static func tier(_ index: Int) -> String { "tier-\(index % 1000)" }

    /// A deterministic secret of 8–64 bytes.
    static func secret(_ index: Int) -> Data {
        var generator = SplitMix(seed: UInt64(index))
        let length = 8 + Int(generator.next() % 57)
        return Data((0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    /// Fills the keychain at `path` with items 0..<count through the engine's bulk add.
    static func populate(path: String, count: Int) throws {
        let keychain = try Keychain.open(path: path)
        let context = AccessContext(accessGroups: [AccessContext.defaultGroup])
        var start = 0
        while start < count {
            let end = min(count, start + 10_000)
            let requests = (start..<end).map { index -> ItemRequest in
                var request = ItemRequest(itemClass: .genericPassword)
                request.attributes[.service] = .string(service(index))
                request.attributes[.account] = .string(account(index))
                request.attributes[.label] = .string(label(index))
                request.attributes[.description] = .string(tier(index))
                request.secret = secret(index)
                return request
            }
            try keychain.add(contentsOf: requests, context: context)
            start = end
        }
    }

    /// The `SecItemCopyMatching` query for item `index`'s primary key.
    static func keyQuery(_ index: Int, returning key: CFString) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service(index),
            kSecAttrAccount as String: account(index),
            key as String: true,
        ]
    }

    /// A query for item `index`'s primary key with an account no item has.
    static func missQuery(_ index: Int) -> [String: Any] {
        var query = keyQuery(index, returning: kSecReturnData)
        query[kSecAttrAccount as String] = "nobody-\(index)@example.com"
        return query
    }

    /// A query naming a non-key attribute (the description), returning every match's attributes.
    static func filterQuery(_ index: Int) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrDescription as String: tier(index),
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
    }

    /// A query by one indexed attribute (`kSecAttrService`, `kSecAttrLabel`, `kSecAttrAccessGroup`)
    /// returning the attributes of `limit` matches (all when nil).
    static func attributeQuery(_ attribute: CFString, _ value: String, limit: Int?) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            attribute as String: value,
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: limit.map { $0 as Any } ?? kSecMatchLimitAll,
        ]
    }

    /// The `SecItemAdd` dictionary of a new item `index` (`tag` keeps accounts of different runs apart).
    static func addDictionary(_ index: Int, tag: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service(index),
            kSecAttrAccount as String: "\(tag)\(index)@example.com",
            kSecAttrLabel as String: "New account \(index)",
            kSecValueData as String: secret(index),
        ]
    }

    /// The primary-key query of the item `addDictionary(index, tag:)` adds (for deletes).
    static func addedKeyQuery(_ index: Int, tag: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service(index),
            kSecAttrAccount as String: "\(tag)\(index)@example.com",
        ]
    }

    /// The primary-key query of existing item `index` (for updates).
    static func updateQuery(_ index: Int) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service(index),
            kSecAttrAccount as String: account(index),
        ]
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
