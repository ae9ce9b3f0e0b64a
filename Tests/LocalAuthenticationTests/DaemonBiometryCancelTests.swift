import Foundation
import KeychainAuthentication
import KeychainCore
@testable import KeychainService
import LocalAuthentication
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An `LAContext` whose keychain is in `keychaind`: the daemon verifies the finger with its own
/// reader (the scripted fprintd, on the bus the daemon was started with), and the context stops
/// waiting for it when invalidated.
@Suite("LAContext biometry through keychaind", .serialized)
struct DaemonBiometryCancelTests {
    @Test("invalidate() during a verification keychaind runs ends the evaluation with LAError.appCancel while the daemon still waits for a finger; no grant is kept")
    func invalidateWhileTheDaemonVerifies() throws {
        let fprintd = try FprintdDouble()
        let directory = try TestDirectory()
        let socket = directory.path + "/keychaind.sock"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: KeychainBiometryTests.product("keychaind"))
        daemon.arguments = ["--foreground", "--socket", socket, "--idle-exit", "0"]
        daemon.environment = [
            "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": directory.path, "HOME": directory.path,
            "DBUS_SYSTEM_BUS_ADDRESS": fprintd.address,
        ]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        for _ in 0..<2_000 where (try? UnixSocket.connect(to: socket)) == nil { usleep(5_000) }
        let client = ServiceClient(socketPath: socket, startsDaemon: false)
        let path = directory.path + "/daemon.keychain-db"
        _ = try client.create(path: path, passcode: Data("4321".utf8))
        let authority = PasscodeAuthority { try client.open(path: path, create: false) }
        let pinentry = PinentryDouble(directory: directory.path)
        let context = LAContext.testing(pinentry.environment(.cancel), authority: authority, fingerprints: fprintd.verifier())

        // No finger ever touches: the daemon's verification ends only at its reader's timeout.
        let pending = Evaluation { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(fprintd.waitForCalls("VerifyStart any"))
        context.invalidate()
        let (success, error) = pending.result()
        #expect(!success)
        #expect(laCode(error) == .appCancel)
        // The reply came before the daemon's verification ended: fprintd still holds the claim.
        #expect(try !fprintd.calls().contains("Release"))
        #expect(context.grant(forKeychainAt: path) == nil)
    }
}
