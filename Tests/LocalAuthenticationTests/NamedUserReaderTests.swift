import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainTestSupport
import Testing

/// The reader a daemon serving several users (`keychaind --system`) gives each user's keychain:
/// fprintd on the system bus, asked on behalf of the user by name, with the user's own failure
/// count, against the scripted fprintd on a private bus.
@Suite("The fingerprint reader of a daemon serving several users", .serialized)
struct NamedUserReaderTests {
    static let caller = AccessContext(accessGroups: [AccessContext.defaultGroup])

    @Test("fprintd is asked for the named user's fingers (Claim and ListEnrolledFingers with the name); five wrong fingers lock that user out until the keychain verifies the passcode")
    func namedUser() throws {
        let fprintd = try FprintdDouble()
        let directory = try TestDirectory()
        let (keychain, _) = try directory.keychain(passcode: "4321")
        let lockoutFile = directory.path + "/biometry-failures"
        keychain.useBiometrics(
            FingerprintBiometrics.reader(forUser: "kc-user", lockoutFile: lockoutFile, environment: ["DBUS_SYSTEM_BUS_ADDRESS": fprintd.address]))
        try fprintd.setScript(Array(repeating: [("verify-no-match", true)], count: 5) + [[("verify-match", true)]])
        func outcome() -> BiometricOutcome? {
            do {
                _ = try keychain.authenticateBiometry(reason: "r", grant: nil, context: Self.caller)
                return .matched
            } catch let error as KeychainError {
                return BiometricOutcome(failure: error)
            } catch {
                return nil
            }
        }
        for attempt in 1...4 { #expect(outcome() == .noMatch, "attempt \(attempt)") }
        #expect(outcome() == .lockedOut)
        #expect(outcome() == .lockedOut)
        #expect(try fprintd.calls().filter { $0 == "VerifyStart any" }.count == 5)
        #expect(BiometryLockout(path: lockoutFile).isLockedOut)

        _ = try keychain.authenticate(passcode: Data("4321".utf8), grant: nil, context: Self.caller)
        #expect(!BiometryLockout(path: lockoutFile).isLockedOut)
        #expect(outcome() == .matched)
        let calls = try fprintd.calls()
        #expect(calls.contains("Claim kc-user"))
        #expect(calls.contains("ListEnrolledFingers kc-user"))
        #expect(!calls.contains("Claim "))
    }
}
