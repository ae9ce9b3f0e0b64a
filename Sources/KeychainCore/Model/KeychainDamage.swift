/// Damage a whole-keychain read met (`Keychain.allItemsWithDamage`).
public struct KeychainDamage: Equatable, Sendable {
    /// Items whose stored rows fail authentication (altered, or not the version the keychain
    /// last wrote): they are left out of every answer.
    public var unreadableItems: Int
    /// Items the keychain's ledger records whose rows are gone from the database (removed
    /// behind the keychain's back, or lost with the database's `-wal` file).
    public var missingItems: Int

    /// Damage of these counts.
    public init(unreadableItems: Int, missingItems: Int) {
        self.unreadableItems = unreadableItems
        self.missingItems = missingItems
    }

    /// Whether anything is damaged.
    public var isEmpty: Bool { unreadableItems == 0 && missingItems == 0 }
}
