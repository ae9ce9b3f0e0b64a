import Foundation
import KeychainCrypto
import Testing

@testable import KeychainCore

@Suite("Passcode key derivation")
struct PasscodeKDFTests {
    @Test("calibration picks an iteration count that costs about 80 ms here, and stores it in the keybag")
    func calibration() throws {
        let iterations = try PasscodeKDF.calibrate()
        #expect(iterations >= PasscodeKDF.minimumCalibratedIterations)
        #expect(iterations <= PasscodeKDF.maximumIterations)
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try PasscodeKDF.derive(SecureBytes(copying: Data("passcode".utf8)), salt: Data(count: 16), iterations: iterations)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        // Generous bounds: the machine is shared, but a count off by 10× would fall outside.
        #expect(seconds > PasscodeKDF.targetDuration / 5 || iterations == PasscodeKDF.minimumCalibratedIterations)
        #expect(seconds < PasscodeKDF.targetDuration * 8)

        let temporary = try TemporaryKeychain(passcode: "calibrated", options: KeychainOptions(backupWorkFactor: 10))
        let keybag = try #require(try Keybag.load(path: temporary.keychain.keybagPath, deviceKey: temporary.keychain.deviceKey))
        let stored = try #require(keybag.passcode?.iterations)
        #expect(stored >= PasscodeKDF.minimumCalibratedIterations)
        #expect(Double(stored) / Double(iterations) > 0.2 && Double(stored) / Double(iterations) < 5)
    }

    @Test("a keybag asking for an absurd iteration count is refused rather than run")
    func iterationBounds() throws {
        #expect(throws: KeychainError.self) {
            try PasscodeKDF.derive(SecureBytes(copying: Data("x".utf8)), salt: Data(count: 16), iterations: PasscodeKDF.maximumIterations + 1)
        }
        #expect(throws: KeychainError.self) {
            try PasscodeKDF.derive(SecureBytes(copying: Data("x".utf8)), salt: Data(count: 16), iterations: 0)
        }
    }
}
