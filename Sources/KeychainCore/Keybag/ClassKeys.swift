/// The working keys of one protection class, derived from its class key when the class becomes
/// available and dropped (zeroed) when it stops being available.
///
/// - `metadata`: seals the attributes of the class's items (Apple's per-class metadata key, so
///   reading attributes needs no per-item unwrap);
/// - `itemKeyWrapping`: wraps each item's own secret key.
struct ClassKeys: Sendable {
    let metadata: SymmetricKey
    let itemKeyWrapping: SymmetricKey

    /// Derives the working keys from a class key.
    init(classKey: SymmetricKey) throws {
        metadata = try classKey.derive(purpose: "class metadata v2")
        itemKeyWrapping = try classKey.derive(purpose: "class item-key wrapping v2")
    }
}

/// The keys derived from the keybag's index key, available whenever the keychain is open:
/// `tokens` keys the primary-key and access-group tokens (so duplicates are detected while
/// locked), `groupNames` seals the access-group names of the group table, `ledger` authenticates
/// the rollback ledger (`RollbackLedger`), `programs` seals the registered programs.
struct IndexKeys: Sendable {
    let tokens: SymmetricKey
    let groupNames: SymmetricKey
    let ledger: SymmetricKey
    /// Keys the search index's tokens (`SearchIndexEncoding`), apart from primary-key tokens.
    let search: SymmetricKey
    /// Seals the entries of the program registry (`KeychainStore+Programs.swift`).
    let programs: SymmetricKey

    /// Derives the index keys from the keybag's index key.
    init(indexKey: SymmetricKey) throws {
        tokens = try indexKey.derive(purpose: "keyed tokens v2")
        groupNames = try indexKey.derive(purpose: "access group names v2")
        ledger = try indexKey.derive(purpose: "rollback ledger v1")
        search = try indexKey.derive(purpose: "search index tokens v1")
        programs = try indexKey.derive(purpose: "registered programs v1")
    }
}
