import KeychainCore

/// The access control `add-*-password -A` takes: `SecAccessControlCreateFlags` names joined by
/// `|` (any one constraint suffices, `.or`) or by `,` (every one is needed, `.and`), not both:
/// `userPresence`, `biometryAny`, `biometryCurrentSet`, `devicePasscode`, `watch`,
/// `applicationPassword`, `privateKeyUsage` (for example `biometryCurrentSet|devicePasscode`,
/// `devicePasscode,applicationPassword`).
enum AccessControlExpression {
    /// The flag each name stands for.
    static let names: [String: AccessControlPolicy.Flags] = [
        "userPresence": .userPresence, "biometryAny": .biometryAny, "biometryCurrentSet": .biometryCurrentSet,
        "devicePasscode": .devicePasscode, "watch": .watch, "applicationPassword": .applicationPassword,
        "privateKeyUsage": .privateKeyUsage,
    ]

    /// Whether `text` is made of flag names and separators only (so `-A` takes it as its value).
    @Sendable static func looksLikeOne(_ text: String) -> Bool {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "|" || $0 == "," })
        return !parts.isEmpty && parts.allSatisfy { names[String($0)] != nil }
    }

    /// The flags `text` names, validated as `SecAccessControlCreateWithFlags` validates them.
    ///
    /// - Throws: `ToolError.usage` naming the problem: an unknown name, both separators, or a
    ///   combination the flags do not allow.
    static func flags(_ text: String) throws -> AccessControlPolicy.Flags {
        let hasOr = text.contains("|")
        let hasAnd = text.contains(",")
        if hasOr && hasAnd {
            throw ToolError.usage(reason: "-A takes names joined by | (any one) or by , (all), not both")
        }
        var flags: AccessControlPolicy.Flags = []
        for part in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "|" || $0 == "," }) {
            guard let flag = names[String(part)] else {
                throw ToolError.usage(
                    reason: "-A: unknown access control \"\(part)\" (use \(names.keys.sorted().joined(separator: ", ")))")
            }
            flags.insert(flag)
        }
        if AccessControlPolicy.userConstraints(of: flags).count > 1 { flags.insert(hasOr ? .or : .and) }
        do {
            _ = try AccessControlPolicy(protection: .whenUnlocked, flags: flags)
        } catch let error as KeychainError {
            throw ToolError.usage(reason: "-A: \(error.reason)")
        }
        return flags
    }
}
