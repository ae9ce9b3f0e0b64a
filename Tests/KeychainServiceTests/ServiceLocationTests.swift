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

    @Test("In system mode a user's keychains are in the system daemon's state directory and its socket in its own directory")
    func systemLocations() {
        let names = ["KEYCHAIN_MODE", "KEYCHAIND_STATE_DIRECTORY", "XDG_DATA_HOME"]
        let saved: [(String, String?)] = names.map { name in (name, getenv(name).map { String(cString: $0) }) }
        defer { for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } } }
        setenv("XDG_DATA_HOME", "/home/someone/.local/share", 1)
        setenv("KEYCHAIN_MODE", "system", 1)
        unsetenv("KEYCHAIND_STATE_DIRECTORY")
        #expect(KeychainLocation.defaultKeychainPath == "/var/lib/swift-keychain/\(getuid())/login.keychain-db")
        #expect(KeychainLocation.resolve("work") == "/var/lib/swift-keychain/\(getuid())/work.keychain-db")
        setenv("KEYCHAIND_STATE_DIRECTORY", "/srv/keychains", 1)
        #expect(KeychainLocation.defaultKeychainPath == "/srv/keychains/\(getuid())/login.keychain-db")
        // The security command's preferences stay the user's own.
        #expect(KeychainLocation.userDirectory == "/home/someone/.local/share/swift-keychain")
        setenv("KEYCHAIN_MODE", "daemon", 1)
        #expect(KeychainLocation.defaultKeychainPath == "/home/someone/.local/share/swift-keychain/login.keychain-db")
        #expect(ServiceLocation.systemSocket(for: 1234) == "/run/swift-keychain/1234/keychaind.sock")
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
