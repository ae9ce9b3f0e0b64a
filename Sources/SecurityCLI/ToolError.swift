import KeychainCore
import Security

/// Why a command stopped: the one place failures become text on standard error and exit
/// statuses, as macOS's `security` does it.
///
/// The process's exit status is the command's result truncated to 8 bits (`main` returns the
/// `OSStatus`): 44 for errSecItemNotFound, 45 for errSecDuplicateItem, 50 for
/// errSecNoSuchKeychain, 2 for bad usage, 1 for other failures. Messages name APIs and keychain
/// paths, never attribute values or secrets.
enum ToolError: Error, Equatable {
    /// Bad usage: the dispatcher prints `Usage: <cmd> <usage>` and the command's summary; the
    /// result is 2. A reason, when given, is printed first as `security: <reason>`.
    case usage(reason: String?)
    /// An API failed: `security: <api>: <SecCopyErrorMessageString(status)>`; the result is the status.
    case status(OSStatus, api: String)
    /// A failure already described (or one macOS leaves silent); the result is `result`.
    case failed(result: Int32, message: String?)
    /// A command macOS has and this tool does not: errSecUnimplemented.
    case unimplemented(command: String)

    /// The command's result before truncation to an exit status.
    var result: Int32 {
        switch self {
        case .usage: return 2
        case .status(let status, _): return status
        case .failed(let result, _): return result
        case .unimplemented: return errSecUnimplemented
        }
    }

    /// The text this failure prints on standard error (the usage block is added by the dispatcher).
    var message: String? {
        switch self {
        case .usage(let reason): return reason.map { "security: \($0)\n" }
        case .status(let status, let api): return "security: \(api): \(Self.text(for: status))\n"
        case .failed(_, let message): return message
        case .unimplemented(let command): return "security: \(command): \(Self.text(for: errSecUnimplemented))\n"
        }
    }

    /// An API failure from whatever the engine threw, with the status the `Security` functions
    /// report for it (`StatusMapping`: errSecInternalComponent for anything but a
    /// `KeychainError`). A refused file (errSecWrPerm, exit 195) adds the lines
    /// `unsafeFileLines` prints.
    ///
    /// A damaged keychain or item (errSecDecode, errSecInvalidKeychain) adds the engine's reason
    /// on a line of its own (`security: the keychain is damaged: …`): reasons name what is
    /// damaged, never a value, and the status's text alone does not say it. So does a keychain
    /// that is not available (held by keychaind, or the daemon unreachable).
    static func api(_ api: String, _ error: any Error) -> ToolError {
        if let failure = error as? ToolError { return failure }
        let status = StatusMapping.status(for: error)
        if let keychainError = error as? KeychainError {
            let statusLine = ToolError.status(status, api: api).message ?? ""
            if keychainError.unsafeFile != nil {
                return .failed(result: status, message: statusLine + unsafeFileLines(keychainError))
            }
            if keychainError.code == .decode || keychainError.code == .invalidKeychain {
                return .failed(result: status, message: statusLine + damageLine(keychainError.reason))
            }
            // Which process holds the keychain, or why the daemon cannot be reached: the status
            // alone ("No keychain is available") does not say what to do.
            if keychainError.code == .notAvailable {
                return .failed(result: status, message: statusLine + "security: \(keychainError.reason)\n")
            }
        }
        return .status(status, api: api)
    }

    /// `security: the keychain is damaged: <reason>` (the prefix once, when the reason lacks it).
    static func damageLine(_ reason: String) -> String {
        let prefix = "the keychain is damaged"
        return "security: " + (reason.hasPrefix(prefix) ? reason : "\(prefix): \(reason)") + "\n"
    }

    /// For an error refusing a file that is not private: `security: <path>: <what is wrong>`
    /// and `security: to fix: <command>`; otherwise nothing.
    static func unsafeFileLines(_ error: KeychainError) -> String {
        guard let file = error.unsafeFile else { return "" }
        return "security: \(file.path): \(file.summary)\nsecurity: to fix: \(file.fix)\n"
    }

    /// Apple's message for a status (`SecCopyErrorMessageString`).
    static func text(for status: OSStatus) -> String {
        (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
    }

    /// The process exit status for a command result: its low 8 bits, as on macOS.
    static func exitStatus(for result: Int32) -> Int32 {
        Int32(UInt8(truncatingIfNeeded: result))
    }
}
