import Foundation
import KeychainAuthentication
import KeychainCore
@testable import KeychainService
import KeychainTestSupport
import LocalAuthentication
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An `LAContext` whose keychain is in `keychaind`: the daemon verifies the finger with its own
/// reader (the scripted fprintd, on the bus the daemon was started with), and invalidating the
/// context stops the daemon's verification too.
@Suite("LAContext biometry through keychaind", .serialized)
struct DaemonBiometryCancelTests {
    @Test("invalidate() during a verification keychaind runs ends the evaluation with LAError.appCancel, the daemon stops its reader and releases the device long before the reader's timeout, and no grant is kept")
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

        // No finger ever touches: only the cancel can end the daemon's verification early.
        let pending = Evaluation { context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }
        #expect(fprintd.waitForCalls("VerifyStart any"))
        context.invalidate()
        let (success, error) = pending.result()
        #expect(!success)
        #expect(laCode(error) == .appCancel)
        #expect(context.grant(forKeychainAt: path) == nil)
        // The daemon stopped waiting for a finger: it stopped the verification and released the
        // device, well within the reader's 30-second wait for a touch.
        #expect(fprintd.waitForCalls("VerifyStop", seconds: 10))
        #expect(fprintd.waitForCalls("Release", seconds: 10))
        // The device is free again: the next context's verification claims it and matches.
        try fprintd.setScript([[("verify-match", true)]])
        let next = LAContext.testing(pinentry.environment(.cancel), authority: authority, fingerprints: fprintd.verifier())
        let (matched, failure) = Evaluation { next.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r", reply: $0) }.result()
        #expect(matched, "\(String(describing: failure))")
        #expect(next.grant(forKeychainAt: path) != nil)
    }
}
