import Foundation
import KeychainCore
@testable import KeychainDaemon
import KeychainService
import Testing

/// What `keychaind` does with a typed request a peer crafted to break one of the engine's
/// invariants: it is refused before the engine runs, with the status the `Security` surface
/// gives the equivalent dictionary, and nothing stored changes.
@Suite("Daemon request validation")
struct RequestValidationTests {
    /// A keychain with a generic password (row 1) and an internet password (row 2), served by a
    /// `RequestHandler` to an ordinary program of the user.
    struct Fixture {
        let path: String
        let keychain: Keychain
        let handler: RequestHandler
        /// This test process, as the daemon sees a peer at the other end of a socket pair: an
        /// ordinary program of the user (group `default`).
        let caller: PeerCredentials
        let sockets: (UnixSocket, UnixSocket)

        init() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kc-validate-\(UUID().uuidString)").path
            path = directory + "/test.keychain-db"
            keychain = try Keychain.open(path: path, create: true)
            handler = RequestHandler(
                defaultKeychainPath: path, policy: CallerPolicy(expectedUID: getuid(), administratorPaths: []))
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw KeychainError(.io, "socketpair") }
            sockets = (UnixSocket(descriptor: pair[0]), UnixSocket(descriptor: pair[1]))
            caller = try PeerCredentials(socket: pair[0])
            let context = AccessContext(accessGroups: [AccessContext.defaultGroup])
            var password = ItemRequest(itemClass: .genericPassword)
            password.attributes = [.service: .string("svc"), .account: .string("acct")]
            password.secret = Data("s3cret".utf8)
            _ = try keychain.add(password, context: context)
            var internet = ItemRequest(itemClass: .internetPassword)
            internet.attributes = [.server: .string("example.com"), .account: .string("acct")]
            internet.secret = Data("web".utf8)
            _ = try keychain.add(internet, context: context)
        }

        func handle(_ operation: ServiceOperation) -> ServiceResponse {
            handler.handle(ServiceRequest(keychainPath: path, operation: operation), for: caller)
        }

        /// Everything stored, secrets included, as the owner sees it.
        func contents() throws -> [ItemResult] {
            try keychain.allItemsWithDamage(context: AccessContext(accessGroups: ["*"]), includingData: true).items
        }
    }

    /// A request breaking one rule, and the code it must be refused with.
    struct Violation: Sendable, CustomTestStringConvertible {
        let rule: String
        let operation: ServiceOperation
        let code: KeychainError.Code
        var testDescription: String { rule }
    }

    static func request(_ itemClass: ItemClass = .genericPassword, _ change: (inout ItemRequest) -> Void) -> ItemRequest {
        var request = ItemRequest(itemClass: itemClass)
        request.attributes = [.service: .string("new"), .account: .string("acct")]
        change(&request)
        return request
    }

    static func changes(_ change: (inout ItemChanges) -> Void) -> ItemChanges {
        var changes = ItemChanges()
        change(&changes)
        return changes
    }

    static let search = request { $0.attributes = [.service: .string("svc")] }
    static let noConstraints = try! AccessControlPolicy(protection: .afterFirstUnlock, flags: [])
    /// An identity object (its key is not the certificate's, which the cases using it never reach).
    static let anIdentity = Identity(certificate: WireSamples.certificate, privateKey: WireSamples.ecPrivateKey)

    static let violations: [Violation] = [
        Violation(rule: "an attribute of another class", operation: .add(request { $0.attributes[.server] = .string("h") }), code: .param),
        Violation(rule: "an attribute the keychain only returns", operation: .add(request { $0.attributes[.tombstone] = .integer(0) }), code: .param),
        Violation(rule: "a blob attribute given a date", operation: .add(request { $0.attributes[.account] = .date(Date()) }), code: .param),
        Violation(rule: "a string attribute given bytes", operation: .add(request { $0.attributes[.accessGroup] = .data(Data("default".utf8)) }), code: .param),
        Violation(rule: "a date attribute given text", operation: .search(request { $0.attributes = [.creationDate: .string("today")] }), code: .param),
        Violation(rule: "an accessibility that is no protection class", operation: .add(request { $0.attributes[.accessible] = .string("zz") }), code: .param),
        Violation(rule: "a digest that is not 20 bytes", operation: .search(request { $0.attributes = [.sha1: .data(Data([1, 2, 3]))] }), code: .param),
        Violation(rule: "the synchronizable flag as an attribute", operation: .add(request { $0.attributes[.synchronizable] = .integer(1) }), code: .param),
        Violation(rule: "the access control as an attribute", operation: .add(request { $0.attributes[.accessControl] = .data(Data([9, 9])) }), code: .param),
        Violation(rule: "a value over the size limit", operation: .add(request { $0.attributes[.generic] = .data(Data(count: ItemRequest.maximumValueSize + 1)) }), code: .param),
        Violation(rule: "a secret over the size limit", operation: .add(request { $0.secret = Data(count: ItemRequest.maximumValueSize + 1) }), code: .param),
        Violation(rule: "a secret in a search", operation: .search(request { $0.attributes = [.service: .string("svc")]; $0.secret = Data("guess".utf8) }), code: .param),
        Violation(rule: "a secret in a delete", operation: .delete(request { $0.attributes = [.service: .string("svc")]; $0.secret = Data("x".utf8) }), code: .param),
        Violation(rule: "a persistent reference in an add", operation: .add(request { $0.persistentReference = PersistentReference(itemClass: .genericPassword, uuid: Data(count: 16)) }), code: .param),
        Violation(rule: "a persistent reference of another class", operation: .delete(request { $0.attributes = [:]; $0.persistentReference = try! PersistentReference(data: Data("inet".utf8) + Data([0, 0, 0, 0, 0, 0, 0, 2])) }), code: .param),
        Violation(rule: "a search by persistent reference with attributes", operation: .search(request { $0.attributes = [.service: .string("svc")]; $0.persistentReference = try! PersistentReference(data: Data("genp".utf8) + Data([0, 0, 0, 0, 0, 0, 0, 1])) }), code: .param),
        Violation(rule: "an identity in a search", operation: .search(request(.identity) { $0.attributes = [:]; $0.identity = anIdentity }), code: .param),
        Violation(rule: "an identity added as a generic password", operation: .add(request { $0.identity = anIdentity }), code: .param),
        Violation(rule: "an identity whose key is not the certificate's", operation: .add(request(.identity) { $0.attributes = [:]; $0.identity = anIdentity }), code: .param),
        Violation(rule: "an identity add without an identity", operation: .add(request(.identity) { $0.attributes = [:] }), code: .param),
        Violation(rule: "a key add without a key type", operation: .add(request(.key) { $0.attributes = [.applicationTag: .string("t")]; $0.secret = Data([1]) }), code: .param),
        Violation(rule: "a negative match limit", operation: .search(request { $0.attributes = [.service: .string("svc")]; $0.matchLimit = .count(-1) }), code: .param),
        Violation(rule: "an accessibility beside an access control", operation: .add(request { $0.attributes[.accessible] = .string("ak"); $0.accessControl = noConstraints }), code: .param),
        Violation(rule: "a synchronizable add with a ThisDeviceOnly accessibility", operation: .add(request { $0.attributes[.accessible] = .string("aku"); $0.synchronizable = .only(true) }), code: .param),
        Violation(rule: "a synchronizable add with an access control", operation: .add(request { $0.accessControl = noConstraints; $0.synchronizable = .only(true) }), code: .param),
        Violation(rule: "a host-or-subdomain search of generic passwords", operation: .search(request { $0.attributes = [:]; $0.hostOrSubdomain = "example.com" }), code: .unimplemented),
        Violation(rule: "an update query with an attribute of another class", operation: .update(request { $0.attributes = [.service: .string("svc"), .server: .string("h")] }, ItemChanges()), code: .param),
        Violation(rule: "a change of an attribute of another class", operation: .update(search, changes { $0.attributes = [.server: .string("h")] }), code: .param),
        Violation(rule: "a change of an attribute the keychain maintains", operation: .update(search, changes { $0.attributes = [.creationDate: .date(Date(timeIntervalSince1970: 0))] }), code: .param),
        Violation(rule: "a change giving a value of the wrong form", operation: .update(search, changes { $0.attributes = [.label: .date(Date())] }), code: .param),
        Violation(rule: "a change of the synchronizable flag as an attribute", operation: .update(search, changes { $0.attributes = [.synchronizable: .integer(1)] }), code: .param),
        Violation(rule: "a change to an accessibility beside an access control", operation: .update(search, changes { $0.attributes = [.accessible: .string("ck")]; $0.accessControl = noConstraints }), code: .param),
        Violation(rule: "a change making an item with an access control synchronizable", operation: .update(search, changes { $0.accessControl = noConstraints; $0.synchronizable = true }), code: .param),
        Violation(rule: "a change making a ThisDeviceOnly item synchronizable", operation: .update(search, changes { $0.attributes = [.accessible: .string("cku")]; $0.synchronizable = true }), code: .param),
        Violation(rule: "a change with a secret over the size limit", operation: .update(search, changes { $0.secret = Data(count: ItemRequest.maximumValueSize + 1) }), code: .param),
    ]

    @Test("A typed request that breaks an engine invariant is refused with the decoder's status, and nothing stored changes", arguments: violations)
    func refused(violation: Violation) throws {
        let fixture = try Fixture()
        let before = try fixture.contents()
        let response = fixture.handle(violation.operation)
        guard case .failure(let error) = response else {
            Issue.record("\(violation.rule): answered \(response), not a failure")
            return
        }
        #expect(error.code == violation.code, "\(violation.rule): \(error)")
        #expect(try fixture.contents() == before, "\(violation.rule) changed what is stored")
    }

    @Test("Well-formed typed requests pass the checks: add, search with a huge limit, update and delete")
    func wellFormed() throws {
        let fixture = try Fixture()
        var add = Self.request { $0.secret = Data("new".utf8); $0.returns = [.persistentReference] }
        add.attributes[.accessible] = .string("cku")
        guard case .item(let added?) = fixture.handle(.add(add)) else {
            Issue.record("the add failed")
            return
        }
        var search = Self.request { $0.attributes = [.account: .string("acct")]; $0.returns = [.data]; $0.matchLimit = .count(Int.max) }
        guard case .items(let found) = fixture.handle(.search(search)) else {
            Issue.record("the search failed")
            return
        }
        #expect(Set(found.compactMap(\.data)) == [Data("s3cret".utf8), Data("new".utf8)])
        search.attributes = [:]
        search.persistentReference = try PersistentReference(data: #require(added.persistentReference))
        guard case .items(let byReference) = fixture.handle(.search(search)) else {
            Issue.record("the search by persistent reference failed")
            return
        }
        #expect(byReference.map(\.data) == [Data("new".utf8)])
        let label = Self.changes { $0.attributes = [.label: .string("relabelled")]; $0.secret = Data("newer".utf8) }
        guard case .done = fixture.handle(.update(Self.request { $0.attributes = [.service: .string("new")] }, label)) else {
            Issue.record("the update failed")
            return
        }
        guard case .count(1) = fixture.handle(.delete(Self.request { $0.attributes = [.label: .string("relabelled")] })) else {
            Issue.record("the delete failed")
            return
        }
    }
}
