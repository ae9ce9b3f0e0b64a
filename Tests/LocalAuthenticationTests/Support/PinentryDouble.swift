import Foundation
import KeychainAuthentication

/// The scripted pinentry (`Tests/TestDoubles/pinentry-double`, a POSIX shell script speaking
/// Assuan) and environments that select it with `KEYCHAIN_PINENTRY`.
struct PinentryDouble {
    /// What the double answers to GETPIN.
    enum Mode: String {
        case pin, cancel, error, hang, garbage, silent
    }

    /// The script's path in the source tree.
    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("TestDoubles/pinentry-double").path
    }()

    /// Where the double records every line it receives.
    let log: String

    init(directory: String) {
        log = directory + "/pinentry.log"
    }

    /// An environment choosing the double, answering as `mode` says (`pins` one after another,
    /// then `pin`, each already escaped), with `terminal` as the caller's terminal and prompts
    /// timing out after `timeout` seconds.
    func environment(
        _ mode: Mode, pin: String? = nil, pins: [String] = [], terminal: String? = nil, timeout: Int = 30
    ) -> PinentryEnvironment {
        var variables = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "KEYCHAIN_PINENTRY": Self.path,
            "KEYCHAIN_PINENTRY_TIMEOUT": String(timeout),
            "PINENTRY_DOUBLE_MODE": mode.rawValue,
            "PINENTRY_DOUBLE_LOG": log,
        ]
        if let pin { variables["PINENTRY_DOUBLE_PIN"] = pin }
        if !pins.isEmpty { variables["PINENTRY_DOUBLE_PINS"] = pins.joined(separator: " ") }
        return PinentryEnvironment(variables: variables, terminal: terminal)
    }

    /// The lines the double received, or nil when it never ran.
    func receivedLines() -> [String]? {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").map(String.init)
    }
}
