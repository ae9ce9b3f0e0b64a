import Foundation
import KeychainCore
import KeychainService
import Testing

@Suite("Service location", .serialized)
struct ServiceLocationTests {
    @Test("KEYCHAIN_MODE chooses embedded, daemon, system or automatic, and refuses anything else")
    func modeVariable() throws {
        let saved = getenv("KEYCHAIN_MODE").map { String(cString: $0) }
        defer { if let saved { setenv("KEYCHAIN_MODE", saved, 1) } else { unsetenv("KEYCHAIN_MODE") } }
        let cases: [(String?, ServiceLocation.Mode)] = [(nil, .automatic), ("auto", .automatic), ("embedded", .embedded), ("daemon", .daemon), ("system", .system)]
        for (value, mode) in cases {
            if let value { setenv("KEYCHAIN_MODE", value, 1) } else { unsetenv("KEYCHAIN_MODE") }
            #expect(try ServiceLocation.requestedMode() == mode)
        }
        setenv("KEYCHAIN_MODE", "deamon", 1)
        #expect(throws: KeychainError.self) { try ServiceLocation.requestedMode() }
    }

    @Test("In system mode a user's keychains are in the system daemon's state directory for the uid, its socket in a directory of its own")
    func systemLocations() {
        // The environment is only read: another suite's child may be copying it meanwhile.
        // (KEYCHAIND_STATE_DIRECTORY and KEYCHAIN_MODE=system are exercised by keychaind --system's tests.)
        guard getenv("KEYCHAIND_STATE_DIRECTORY") == nil else { return }
        #expect(KeychainLocation.systemDirectory(for: 1234) == "/var/lib/swift-keychain/1234")
        #expect(ServiceLocation.systemSocket(for: 1234) == "/run/swift-keychain/1234/keychaind.sock")
        #expect(ServiceLocation.systemSocket(for: 1234, in: "/tmp/r") == "/tmp/r/1234/keychaind.sock")
    }

    @Test("The user socket lives in the runtime directory when there is one")
    func runtimeDirectory() {
        let saved = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        defer { if let saved { setenv("XDG_RUNTIME_DIR", saved, 1) } else { unsetenv("XDG_RUNTIME_DIR") } }
        setenv("XDG_RUNTIME_DIR", "/run/user/1234", 1)
        #expect(ServiceLocation.userSocket == "/run/user/1234/swift-keychain/keychaind.sock")
        unsetenv("XDG_RUNTIME_DIR")
        #expect(ServiceLocation.userSocket == "/tmp/swift-keychain-\(getuid())/keychaind.sock")
    }
}
