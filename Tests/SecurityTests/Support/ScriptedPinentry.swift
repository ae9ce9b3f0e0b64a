import Foundation
import KeychainAuthentication
import KeychainCore
import KeychainService
import LocalAuthentication

/// The scripted pinentry (`Tests/TestDoubles/pinentry-double`) for the `Security` tests: an
/// environment selecting it, and the lines it received (one `GETPIN` per passcode asked).
struct ScriptedPinentry {
    /// What the double answers to GETPIN.
    enum Mode: String {
        case pin, cancel
        /// Never answers: only a withdrawn prompt (or the 30-second timeout) ends it.
        case hang
    }

    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("TestDoubles/pinentry-double").path
    }()

    /// Where the double records every line it receives.
    let log: String

    /// A double logging into `directory`.
    init(directory: URL) {
        log = directory.appendingPathComponent("pinentry-\(UUID().uuidString).log").path
    }

    /// An environment choosing the double, answering `pins` one after another, then `pin`.
    func environment(_ mode: Mode, pin: String? = nil, pins: [String] = []) -> PinentryEnvironment {
        var variables = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "KEYCHAIN_PINENTRY": Self.path,
            "KEYCHAIN_PINENTRY_TIMEOUT": "30",
            "PINENTRY_DOUBLE_MODE": mode.rawValue,
            "PINENTRY_DOUBLE_LOG": log,
        ]
        if let pin { variables["PINENTRY_DOUBLE_PIN"] = pin }
        if !pins.isEmpty { variables["PINENTRY_DOUBLE_PINS"] = pins.joined(separator: " ") }
        return PinentryEnvironment(variables: variables, terminal: nil)
    }

    /// A context prompting through the double and checking passcodes against the default keychain.
    func context(_ mode: Mode, pin: String? = nil, pins: [String] = []) -> LAContext {
        LAContext(
            environment: environment(mode, pin: pin, pins: pins),
            passcodeAuthority: PasscodeAuthority { try KeychainConnector.openDefault(context: try Entitlements.currentContext()) },
            callerName: "security-tests")
    }

    /// The lines received, empty when the double never ran.
    var receivedLines: [String] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// How many times a secret was asked for.
    var prompts: Int { receivedLines.filter { $0 == "GETPIN" }.count }
}
