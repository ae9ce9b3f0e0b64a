import Foundation
import KeychainCore
import KeychainService
import Testing

// These tests never set the environment: every suite of the run shares it, and a SecItem call
// elsewhere reads KEYCHAIN_MODE and XDG_RUNTIME_DIR at that moment.
@Suite("Service location")
struct ServiceLocationTests {
    @Test("KEYCHAIN_MODE chooses embedded, daemon, system or automatic, and refuses anything else")
    func modeVariable() throws {
        #expect(try ServiceLocation.mode(named: nil) == .automatic)
        let cases: [(String, ServiceLocation.Mode)] = [("", .automatic), ("auto", .automatic), ("embedded", .embedded), ("daemon", .daemon), ("system", .system)]
        for (value, mode) in cases {
            #expect(try value.withCString { try ServiceLocation.mode(named: $0) } == mode)
        }
        #expect(throws: KeychainError.self) { try "deamon".withCString { try ServiceLocation.mode(named: $0) } }
    }

    @Test("In system mode a user's keychains are in the system daemon's state directory for the uid, its socket in a directory of its own")
    func systemLocations() {
        // (KEYCHAIND_STATE_DIRECTORY and KEYCHAIN_MODE=system are exercised by keychaind --system's tests.)
        guard getenv("KEYCHAIND_STATE_DIRECTORY") == nil else { return }
        #expect(KeychainLocation.systemDirectory(for: 1234) == "/var/lib/swift-keychain/1234")
        #expect(ServiceLocation.systemSocket(for: 1234) == "/run/swift-keychain/1234/keychaind.sock")
        #expect(ServiceLocation.systemSocket(for: 1234, in: "/tmp/r") == "/tmp/r/1234/keychaind.sock")
    }

    @Test("The user socket lives in the runtime directory when there is one")
    func runtimeDirectory() {
        #expect(ServiceLocation.userDirectory(runtimeDirectory: "/run/user/1234", uid: 1234) == "/run/user/1234/swift-keychain")
        #expect(ServiceLocation.userDirectory(runtimeDirectory: nil, uid: 1234) == "/tmp/swift-keychain-1234")
        #expect(ServiceLocation.userDirectory(runtimeDirectory: "relative", uid: 1234) == "/tmp/swift-keychain-1234")
        #expect(ServiceLocation.userSocket == ServiceLocation.userDirectory + "/keychaind.sock")
    }
}
