import Foundation
import Testing

@testable import KeychainSync

/// The sync state's stored form: the mirror as one compact value, and states stored by earlier
/// builds (the mirror as a dictionary of objects) still read.
@Suite("Sync state coding")
struct SyncStateCodingTests {
    static func state() throws -> SyncState {
        var state = try SyncState(
            conninfo: "host=127.0.0.1", keys: try AccountKeys.generate(accountID: UUID()), epoch: 1,
            identity: try DeviceIdentity.generate(), trusted: [:])
        state.mirror = [
            UUID().uuidString.lowercased(): .init(
                primaryKey: String(repeating: "0f", count: 32), content: String(repeating: "a1", count: 32), generation: 7,
                record: String(repeating: "b3", count: 32)),
            UUID().uuidString.lowercased(): .init(primaryKey: String(repeating: "e2", count: 32), content: "", generation: 1),
        ]
        return state
    }

    @Test("the mirror is stored as one string and reads back entry for entry")
    func compactMirrorRoundTrips() throws {
        let state = try Self.state()
        let data = try JSONEncoder().encode(state)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["mirror"] is String)
        #expect(try JSONDecoder().decode(SyncState.self, from: data).mirror == state.mirror)
    }

    @Test("a state stored with the mirror as a dictionary of objects is still read")
    func dictionaryMirrorIsRead() throws {
        let state = try Self.state()
        var object = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(state)) as? [String: Any])
        object["mirror"] = state.mirror.mapValues { ["primaryKey": $0.primaryKey, "content": $0.content, "generation": $0.generation] as [String: Any] }
        let stored = try JSONSerialization.data(withJSONObject: object)
        // Those states kept no record digest: `content` stands in for it.
        #expect(try JSONDecoder().decode(SyncState.self, from: stored).mirror == state.mirror.mapValues { entry in
            var old = entry
            old.record = nil
            return old
        })
    }
}
