import Foundation
import Security
import Testing

/// An `NSDictionary` subclass that keeps its entries itself, as a caller's own dictionary class
/// may: Foundation's storage is empty, and only the primitive accessors answer.
private final class ForwardingDictionary: NSDictionary {
    private var entries: [String: Any] = [:]

    init(_ entries: [String: Any]) {
        self.entries = entries
        super.init(objects: nil, forKeys: nil, count: 0)
    }

    required init(objects: UnsafePointer<AnyObject>!, forKeys keys: UnsafePointer<NSObject>!, count cnt: Int) {
        super.init(objects: objects, forKeys: keys, count: cnt)
    }

    required convenience init(dictionaryLiteral elements: (Any, Any)...) {
        self.init([:])
    }

    required init?(coder: NSCoder) { nil }

    override var count: Int { entries.count }

    override func object(forKey key: Any) -> Any? {
        guard let name = (key as? NSString).map(String.init) ?? key as? String else { return nil }
        return entries[name]
    }

    override func keyEnumerator() -> NSEnumerator {
        (entries.keys.map { $0 as NSString } as NSArray).objectEnumerator()
    }
}

@Suite("Dictionaries of other classes than Foundation's own")
struct DictionarySubclassTests {
    @Test("An NSDictionary subclass is read through its own accessors: an add and a lookup by key work as with a plain dictionary")
    func subclassReadThroughAccessors() throws {
        try TemporaryKeychain.run { _ in
            let key: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "subclass.example",
                kSecAttrAccount as String: "me",
            ]
            var attributes = key
            attributes[kSecValueData as String] = Data("secret".utf8)
            attributes[kSecAttrLabel as String] = "label"
            #expect(SecItemAdd(ForwardingDictionary(attributes), nil) == errSecSuccess)
            #expect(SecItemAdd(ForwardingDictionary(attributes), nil) == errSecDuplicateItem)

            var query = key
            query[kSecReturnData as String] = true
            query[kSecReturnAttributes as String] = true
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(ForwardingDictionary(query), &result) == errSecSuccess)
            let found = try #require(result as? [String: Any])
            #expect(found[kSecValueData as String] as? Data == Data("secret".utf8))
            #expect(found[kSecAttrLabel as String] as? String == "label")

            query[kSecAttrAccount as String] = "nobody"
            #expect(SecItemCopyMatching(ForwardingDictionary(query), &result) == errSecItemNotFound)
            query[kSecAttrAccount as String] = 1.5
            #expect(SecItemCopyMatching(ForwardingDictionary(query), &result) == errSecParam)
        }
    }
}
