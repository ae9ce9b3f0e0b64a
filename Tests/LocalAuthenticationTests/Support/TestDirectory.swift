import Foundation
import KeychainAuthentication
import KeychainCore

/// A private temporary directory, removed when the test ends.
final class TestDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "la-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A keychain in this directory with `passcode` (nil: none), opened in this process with a
    /// cheap passcode derivation, and an authority checking passcodes against it.
    func keychain(passcode: String?) throws -> (keychain: Keychain, authority: PasscodeAuthority) {
        let keychain = try Keychain.create(
            path: path + "/test.keychain-db", passcode: passcode.map { Data($0.utf8) },
            options: KeychainOptions(passcodeIterations: 1_000, backupWorkFactor: 10))
        let handle = EmbeddedKeychain(keychain, context: AccessContext(accessGroups: [AccessContext.defaultGroup]))
        return (keychain, PasscodeAuthority { handle })
    }
}
