import Foundation
import KeychainAuthentication
import KeychainCore
import Synchronization

/// A private temporary directory, removed when the test ends.
final class TestDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "la-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A keychain in this directory with `passcode` (nil: none), opened in this process with a
    /// cheap passcode derivation and `clock`, and an authority checking passcodes against it.
    func keychain(passcode: String?, clock: any KeychainClock = SystemClock()) throws -> (keychain: Keychain, authority: PasscodeAuthority) {
        let keychain = try Keychain.create(
            path: path + "/test.keychain-db", passcode: passcode.map { Data($0.utf8) },
            options: KeychainOptions(passcodeIterations: 1_000, backupWorkFactor: 10, clock: clock))
        let handle = EmbeddedKeychain(keychain, context: AccessContext(accessGroups: [AccessContext.defaultGroup]))
        return (keychain, PasscodeAuthority { handle })
    }
}

/// A clock the test moves by hand: the keychain's grants expire by it without the test waiting.
final class TestClock: KeychainClock, Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}
