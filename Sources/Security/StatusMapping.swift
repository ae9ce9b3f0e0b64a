import KeychainCore

/// The one place engine errors become `OSStatus` values and `CFError`s.
enum StatusMapping {
    /// The `OSStatus` Apple's API returns for `error`.
    static func status(for error: any Error) -> OSStatus {
        if let error = error as? KeychainError { return error.status }
        return errSecInternalComponent
    }

    /// A `CFError` in the OSStatus domain, as Apple's `…WithError` functions produce. The
    /// description names keys, never values.
    static func cfError(for error: any Error) -> CFError {
        let reason = (error as? KeychainError)?.reason ?? "internal error"
        return NSError(
            domain: kCFErrorDomainOSStatus as String, code: Int(status(for: error)),
            userInfo: [NSDebugDescriptionErrorKey: reason])
    }

    /// A `CFError` for a bare status.
    static func cfError(status: OSStatus, reason: String) -> CFError {
        NSError(domain: kCFErrorDomainOSStatus as String, code: Int(status), userInfo: [NSDebugDescriptionErrorKey: reason])
    }

    /// Runs `body`, returning `errSecSuccess` or the status of what it threw.
    static func run(_ body: () throws -> Void) -> OSStatus {
        do {
            try body()
            return errSecSuccess
        } catch {
            return status(for: error)
        }
    }
}
