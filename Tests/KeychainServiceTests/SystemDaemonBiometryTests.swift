import Foundation
import Glibc
import KeychainDBus
import KeychainTestSupport
import Testing

@Suite("keychaind --system and the fingerprint reader", .serialized)
struct SystemDaemonBiometryTests {
    @Test("keychaind --system verifies a user's finger by name: the user's LAContext, evaluated with one finger, reads a biometryCurrentSet item")
    func fingerOfTheServedUser() throws {
        let bus = try FprintdDouble(audience: .everyone)
        let fixture = try SystemDaemonFixture(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "KEYCHAIN_PINENTRY": "/nonexistent"])
        let user = fixture.first
        let add = try fixture.security(
            "add-generic-password", "-a", "me", "-s", "vault", "-w", "finger-secret", "-A", "biometryCurrentSet", as: user)
        try #require(add.status == 0, "\(add.error)")
        let passcode = try fixture.security("set-keychain-password", "-o", "", "-p", "4321", as: user)
        try #require(passcode.status == 0, "\(passcode.error)")
        try bus.setScript([[("verify-match", true)]])
        let read = try fixture.run(DaemonFixture.testClient, ["find-after-biometry", "vault", "me", "4321"], as: user)
        #expect(read.output == "evaluated\n0 finger-secret\n", "\(read.error)")
        let calls = try bus.calls()
        #expect(calls.contains("Claim \(user.name)"), "\(calls)")
        #expect(calls.contains("ListEnrolledFingers \(user.name)"), "\(calls)")
        #expect(calls.filter { $0 == "VerifyStart any" }.count == 1, "\(calls)")
    }
}
