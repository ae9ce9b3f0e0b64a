import KeychainCore

/// The one place engine errors become `OSStatus` values and `CFError`s: the `Security` functions
/// and the `security` command both report an engine error with the status this mapping gives.
package enum StatusMapping {
    /// `errSecInternal` (-26276), which Apple declares in its private SecBasePriv.h rather than in
    /// SecBase.h, so it is not among the public `errSec…` constants and has no message.
    package static let errSecInternal: OSStatus = -26276

    /// The `OSStatus` Apple's API returns for an engine error with `code`.
    package static func status(for code: KeychainError.Code) -> OSStatus {
        switch code {
        case .unimplemented: return errSecUnimplemented
        case .diskFull: return errSecDiskFull
        case .io: return errSecIO
        case .writePermission: return errSecWrPerm
        case .param: return errSecParam
        case .allocate: return errSecAllocate
        case .notAvailable: return errSecNotAvailable
        case .readOnly: return errSecReadOnly
        case .authFailed: return errSecAuthFailed
        case .noSuchKeychain: return errSecNoSuchKeychain
        case .invalidKeychain: return errSecInvalidKeychain
        case .duplicateKeychain: return errSecDuplicateKeychain
        case .duplicateItem: return errSecDuplicateItem
        case .itemNotFound: return errSecItemNotFound
        case .noSuchAttribute: return errSecNoSuchAttr
        case .noSuchClass: return errSecNoSuchClass
        case .keySizeNotAllowed: return errSecKeySizeNotAllowed
        case .unsupportedFormat: return errSecUnsupportedFormat
        case .unknownFormat: return errSecUnknownFormat
        case .passphraseRequired: return errSecPassphraseRequired
        case .verifyFailed: return errSecVerifyFailed
        case .interactionNotAllowed: return errSecInteractionNotAllowed
        case .decode: return errSecDecode
        case .missingEntitlement: return errSecMissingEntitlement
        case .internal: return errSecInternal
        // Only when no one could ask the user: the `Security` surface asks and retries otherwise.
        case .authenticationNeeded: return errSecInteractionNotAllowed
        case .userCanceled: return errSecUserCanceled
        }
    }

    /// The `OSStatus` Apple's API returns for `error`: its code's status for an engine error,
    /// errSecInternalComponent for anything else.
    package static func status(for error: any Error) -> OSStatus {
        if let error = error as? KeychainError { return status(for: error.code) }
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
