import Foundation
import KeychainCore
import KeychainService

/// (f) What `keychaind` runs for a peer: the input is a request payload, decoded by the wire
/// codec; an item operation that decodes is checked (`ItemRequest.validate`,
/// `ItemChanges.validate`) and run against a real keychain holding a few items, as the daemon's
/// request handler does (the keychain path the payload names is ignored). Properties:
/// - nothing traps;
/// - every refusal, by the checks or the engine, is a `KeychainError`;
/// - a refused request changes nothing stored;
/// - after every request the keychain reads whole: no item is unreadable or missing.
enum ServiceRequestFuzzer {
    /// The groups of the peer the requests come from.
    static let context = AccessContext(accessGroups: ["TEAM.app", AccessContext.defaultGroup])
    /// The owner's: every group, adding to the default one.
    static let everyGroup = AccessContext(accessGroups: [AccessContext.defaultGroup, "*"])

    /// The keychain, in a fresh temporary directory, opened once per process.
    static let keychain: Keychain = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kc-fuzz-requests-\(UUID().uuidString)")
        do {
            return try Keychain.open(path: directory.appendingPathComponent("fuzz.keychain-db").path, create: true)
        } catch {
            fatalError("service-requests: the keychain could not be created: \(error)")
        }
    }()

    /// Whether an earlier input may have changed the items (the next one starts from the
    /// baseline again, so that every input runs against the same items).
    nonisolated(unsafe) static var changed = true

    /// A certificate from the test vectors.
    static let certificate: Data? = try? Data(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("TestVectors/certificates/leaf-ec-p256.der"))

    /// The items every input starts from: generic passwords in two groups (one synchronizable),
    /// an internet password, and a certificate.
    static var baseline: [ItemRequest] {
        var own = ItemRequest(itemClass: .genericPassword)
        own.attributes = [.service: .string("svc"), .account: .string("acct"), .label: .string("mine"), .accessGroup: .string("TEAM.app")]
        own.secret = Data("s3cret".utf8)
        var shared = ItemRequest(itemClass: .genericPassword)
        shared.attributes = [.service: .string("svc"), .account: .string("other"), .accessGroup: .string(AccessContext.defaultGroup)]
        shared.synchronizable = .only(true)
        shared.secret = Data()
        var internet = ItemRequest(itemClass: .internetPassword)
        internet.attributes = [
            .server: .string("mail.example.com"), .account: .string("acct"), .port: .integer(443), .protocol: .string("htps"),
            .path: .string("/"), .accessible: .string(Protection.afterFirstUnlock.rawValue),
        ]
        internet.secret = Data("web".utf8)
        var requests = [own, shared, internet]
        if let certificate, let parsed = try? Certificate(der: certificate) {
            var item = ItemRequest(itemClass: .certificate)
            item.attributes = parsed.itemAttributes
            item.secret = certificate
            requests.append(item)
        }
        return requests
    }

    static func run(_ input: inout FuzzInput) throws {
        let request: ServiceRequest
        do {
            request = try ServiceRequest(payload: Data(input.remainder()))
        } catch is WireError {
            return
        } catch {
            throw FuzzFailure("decoding threw \(type(of: error)), not a WireError")
        }
        switch request.operation {
        case .add, .search, .update, .delete: break
        default: return
        }
        if changed { try reset() }
        let before = try contents()
        let engine = EmbeddedKeychain(keychain, context: context)
        do {
            switch request.operation {
            case .add(let item):
                try item.validate(for: .add)
                changed = true
                _ = try engine.add(item)
            case .search(let query):
                try query.validate(for: .copyMatching)
                _ = try engine.search(query)
            case .update(let query, let changes):
                try query.validate(for: .update)
                try changes.validate(for: query.itemClass)
                changed = true
                try engine.update(query, changes: changes)
            case .delete(let query):
                try query.validate(for: .delete)
                changed = true
                _ = try engine.delete(query)
            default: return
            }
        } catch let error as KeychainError {
            guard try contents() == before else {
                throw FuzzFailure("a request refused with \(error.code) changed what is stored")
            }
        } catch {
            throw FuzzFailure("the engine threw \(type(of: error)), not a KeychainError")
        }
        let damage = try keychain.allItemsWithDamage(context: everyGroup, includingData: false).damage
        guard damage.unreadableItems == 0 && damage.missingItems == 0 else {
            throw FuzzFailure("a request left items unreadable (\(damage.unreadableItems)) or missing (\(damage.missingItems))")
        }
    }

    /// Deletes every item and adds the baseline.
    static func reset() throws {
        for itemClass in ItemClass.stored {
            do {
                try keychain.delete(ItemRequest(itemClass: itemClass), context: everyGroup)
            } catch let error as KeychainError where error.code == .itemNotFound {}
        }
        try keychain.add(contentsOf: baseline, context: everyGroup)
        changed = false
    }

    /// One stored item as the owner reads it.
    struct StoredItem: Equatable {
        let attributes: ItemAttributes?
        let accessControl: AccessControlPolicy?
        let data: Data?
        let persistentReference: Data?
    }

    /// Everything stored, secrets included.
    static func contents() throws -> [StoredItem] {
        try keychain.allItems(context: everyGroup, includingData: true).map {
            StoredItem(attributes: $0.attributes, accessControl: $0.accessControl, data: $0.data, persistentReference: $0.persistentReference)
        }
    }
}
