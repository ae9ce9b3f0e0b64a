import Foundation

/// Upgrades a version-1 keychain (the project's first storage format: one root key in
/// `<keychain>.key`, no protection-class column) to version 2 in place, the first time this code
/// opens it.
///
/// Everything happens in one write transaction: the protection-class column is added, every row
/// is opened with the old keys and sealed again under its class's keys (same UUID, same
/// attributes and dates, so persistent references and digests survive), the access-group table is
/// re-keyed, the database is bound to the keybag and its version set to 2. A failure or a crash
/// before the commit leaves the keychain exactly as it was, still at version 1, to be upgraded
/// at the next open. The old key file is removed only after the commit. Rows the old keys cannot
/// open (they were already unreadable) are left as they are.
enum KeychainMigration {
    /// Upgrades `keychain`'s database if it is at version 1.
    ///
    /// - Throws: `errSecInvalidKeychain` when the old key file is missing or belongs to another
    ///   keychain; any failure of the upgrade (nothing is changed then).
    static func upgradeIfNeeded(_ keychain: Keychain, keybag: Keybag) throws {
        let store = keychain.store
        guard try store.withConnection({ try KeychainStore.version(in: $0) }) == 1 else { return }
        let legacy = LegacyItemSealer(
            keys: try LegacyKeychainKeys.load(at: KeychainLocation.legacyKeyFilePath(forDatabase: keychain.path)))
        try store.withConnection { connection in
            try connection.writeTransaction {
                guard try KeychainStore.version(in: connection) == 1 else { return }
                if let check = try store.value(forKey: "key-check", in: connection), check != (try legacy.keys.keyCheck()) {
                    throw KeychainError(.invalidKeychain, "the key file does not belong to this keychain")
                }
                try connection.execute(KeychainStore.version1To2)
                // The rest of the schema first (generations, the ledger at generation 0), so that
                // each row is sealed again as a current row at generation 1.
                try store.upgrade(from: 2, in: connection)
                var migrated = 0
                for row in try store.allRows(in: connection) {
                    guard let record = try? legacy.openRecord(row) else { continue }
                    var secret = try row.secret.map { blob in
                        try legacy.openSecret(blob, itemClass: row.itemClass, uuid: row.uuid).withUnsafeBytes { Data($0) }
                    }
                    defer { secret?.wipe() }
                    var resealed = try store.seal(record, secret: secret, generation: row.generation + 1)
                    resealed.rowID = row.rowID
                    try store.update(resealed, previous: row, in: connection)
                    migrated += 1
                    if let limit = keychain.options.migrationFailureAfterRows, migrated >= limit {
                        throw KeychainError(.internal, "the upgrade was stopped after \(migrated) rows")
                    }
                }
                let groups = try store.accessGroups(in: connection).compactMap { entry in
                    try? legacy.openAccessGroup(entry.sealedName, token: entry.token)
                }
                try store.removeAccessGroups(in: connection)
                let tx = KeychainStore.Transaction(store: store, connection: connection)
                for group in groups { try tx.registerAccessGroup(group) }
                try store.removeValue(forKey: "key-check", in: connection)
                try store.setValue(keybag.uuid, forKey: "keybag-uuid", in: connection)
            }
        }
    }
}
