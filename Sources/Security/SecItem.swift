import KeychainAuthentication
import KeychainCore
import KeychainService

/// The default keychain on behalf of the calling process, resolved per call so that
/// `XDG_DATA_HOME`, `KEYCHAIN_ENTITLEMENTS` and `KEYCHAIN_MODE` take effect when they change.
/// Through `keychaind` the daemon decides the process's access groups; in-process they come from
/// its entitlements file.
enum ProcessKeychain {
    static func resolve() throws -> any KeychainHandle {
        // In-process, biometric constraints are checked with the machine's fingerprint reader
        // (through keychaind, the daemon checks them with its own).
        FingerprintBiometrics.useMachineReaderForKeychains()
        return try KeychainConnector.openDefault(context: try Entitlements.currentContext())
    }
}

/// Adds an item to the keychain (`SecItemAdd`).
///
/// The four SecItem functions are `@discardableResult`, as every C function imported into Swift
/// is on Apple platforms: client code calls `SecItemDelete(query as CFDictionary)` without using
/// the status, and must compile here without warnings.
///
/// The dictionary holds `kSecClass`, attributes, `kSecValueData`, and optionally `kSecReturn…`
/// keys. Omitted primary-key attributes take their empty defaults; the access group defaults to
/// the process's first group; accessibility to `kSecAttrAccessibleWhenUnlocked` (certificates:
/// `kSecAttrAccessibleAlways`).
///
/// - Returns: `errSecSuccess`; `errSecDuplicateItem` when an item with the same primary key
///   exists; `errSecParam` for an invalid dictionary (including any `kSecMatch…` key or
///   `kSecUseItemList`); `errSecNoSuchClass`; `errSecMissingEntitlement` for an access group the
///   process lacks; `errSecAuthFailed` for `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`
///   without a passcode.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    StatusMapping.run {
        let entries = try RequestBridge.dictionary(attributes)
        let request = try RequestParser.parse(entries, for: .add)
        let keychain = try ProcessKeychain.resolve()
        let added = try AuthenticatedCall.run(request, entries: entries, keychain: keychain) { try keychain.add($0) }
        if let result, let added {
            result.pointee = ResultBridge.item(
                for: added, returns: request.returns, holder: KeyHolder.forResults(of: request, keychain: keychain, entries: entries))
        }
    }
}

/// Finds items (`SecItemCopyMatching`).
///
/// Returns one object by default (`kSecMatchLimitOne`), or an array for any other limit. Each
/// item is the requested part (`kSecReturnData`, `…Attributes`, `…PersistentRef`) or a
/// dictionary when several are requested. Searches that do not mention `kSecAttrSynchronizable`
/// match both kinds of item, as `kSecAttrSynchronizableAny` does (Apple's daemon would add
/// `sync = 0`; the documented default, which this keychain follows, is both).
///
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, `errSecParam`, `errSecNoSuchClass`,
///   `errSecMissingEntitlement`, `errSecUnimplemented` (trust-based certificate searches),
///   `errSecDecode` when the query names exactly (by primary key or persistent reference) an item
///   that fails authentication; searches that scan skip such items. A returned `CFData` secret is
///   zeroed when released.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    StatusMapping.run {
        let entries = try RequestBridge.dictionary(query)
        let request = try RequestParser.parse(entries, for: .copyMatching)
        let keychain = try ProcessKeychain.resolve()
        let found = try AuthenticatedCall.run(request, entries: entries, keychain: keychain) { try keychain.search($0) }
        if let result {
            result.pointee = ResultBridge.object(
                found, returns: request.returns, limit: request.matchLimit ?? .one,
                holder: KeyHolder.forResults(of: request, keychain: keychain, entries: entries))
        }
    }
}

/// Changes every item the query matches (`SecItemUpdate`), all or none.
///
/// - Returns: `errSecSuccess`; `errSecItemNotFound`; `errSecDuplicateItem` when a change would
///   collide with another item's primary key (nothing is changed); `errSecParam` for `kSecMatch…`
///   or `kSecReturn…` keys in the query (as on iOS) or an invalid change.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    StatusMapping.run {
        let entries = try RequestBridge.dictionary(query)
        let request = try RequestParser.parse(entries, for: .update)
        let changes = try RequestParser.parseChanges(
            RequestBridge.dictionary(attributesToUpdate), for: request.itemClass)
        let keychain = try ProcessKeychain.resolve()
        try AuthenticatedCall.run(request, entries: entries, keychain: keychain) { try keychain.update($0, changes: changes) }
    }
}

/// Deletes every item the query matches (`SecItemDelete`).
///
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, `errSecParam` (any `kSecMatch…` key),
///   `errSecMissingEntitlement`.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    StatusMapping.run {
        let request = try RequestParser.parse(RequestBridge.dictionary(query), for: .delete)
        try ProcessKeychain.resolve().delete(request)
    }
}
