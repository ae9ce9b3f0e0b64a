import Foundation
import KeychainCrypto

/// Turns a passcode into key material: PBKDF2-HMAC-SHA256 with the keybag's salt and an iteration
/// count calibrated when the passcode is set, so that one attempt costs about 80 ms on the machine
/// that set it (Apple calibrates its passcode derivation to the same cost per attempt). The
/// count is stored in the keybag; the result is mixed with the device key before it wraps anything.
enum PasscodeKDF {
    /// The cost one attempt should have on the machine that sets the passcode.
    static let targetDuration: TimeInterval = 0.08
    /// The fewest iterations a calibration returns, whatever the machine's speed or load.
    static let minimumCalibratedIterations = 100_000
    /// The most iterations a keybag may ask for (a damaged or hostile keybag cannot stall the process).
    static let maximumIterations = 50_000_000
    /// The derived key material's length.
    static let outputLength = 32

    /// The passcode's key material.
    static func derive(_ passcode: SecureBytes, salt: Data, iterations: Int) throws -> SecureBytes {
        guard (1...maximumIterations).contains(iterations) else {
            throw KeychainError(.invalidKeychain, "the keybag's iteration count is out of range")
        }
        return try withEngineErrors {
            try passcode.withUnsafeBytes { password in
                try salt.withUnsafeBytes {
                    try OpenSSL.pbkdf2SHA256(password: password, salt: $0, iterations: iterations, length: outputLength)
                }
            }
        }
    }

    /// The iteration count that makes one derivation take about `target` seconds here: the
    /// faster of two timed probes, scaled, and never below `minimumCalibratedIterations`.
    static func calibrate(target: TimeInterval = targetDuration) throws -> Int {
        let probeIterations = 20_000
        let probe = SecureBytes(copying: Data("calibration".utf8))
        let salt = try SecureRandom.data(count: 16)
        var fastest = Double.infinity
        for _ in 0..<2 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try derive(probe, salt: salt, iterations: probeIterations)
            fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let scaled = Double(probeIterations) * target / max(fastest, 1e-6)
        return Int(min(max(scaled, Double(minimumCalibratedIterations)), Double(maximumIterations)))
    }
}
