import Foundation

/// The transactions the keychain's operations run in.
extension Keychain {

    /// Runs `body` in one read transaction (one snapshot of the database), with this process's
    /// keys made those of the keybag that snapshot names.
    func reading<T>(_ body: (KeychainStore.Transaction) throws -> T) throws -> T {
        try store.read { tx in
            try requireCurrentKeys(in: tx)
            return try body(tx)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), with current keys.
    ///
    /// - Parameter removing: the write deletes or replaces sealed data (a delete, an update, a
    ///   restore): a checkpoint is scheduled that copies the write-ahead log into the database
    ///   and truncates it (`KeychainStore.scheduleCheckpoint`), so the old ciphertext is gone
    ///   from the keychain's files within `KeychainStore.checkpointDelay` of the call returning.
    func writing<T>(removing: Bool = false, _ body: (KeychainStore.Transaction) throws -> T) throws -> T {
        let value = try store.write { tx in
            try requireCurrentKeys(in: tx)
            return try body(tx)
        }
        if removing { store.scheduleCheckpoint() }
        return value
    }
}

extension Keychain {
    /// Seals with `prepare` outside the write lock (encryption is the costly part of an add),
    /// then runs `body` with what it sealed in a write transaction. If the keychain's keybag was
    /// replaced in between (another process set or changed the passcode), what was sealed
    /// belongs to keys that no longer open anything: it is sealed again with the new keys.
    func writing<Prepared, T>(
        removing: Bool = false, sealing prepare: () throws -> Prepared, _ body: (Prepared, KeychainStore.Transaction) throws -> T
    ) throws -> T {
        while true {
            let keybag = boundKeybag.withLock { $0 }
            let prepared = try prepare()
            let outcome: T? = try writing(removing: removing) { tx in
                guard boundKeybag.withLock({ $0 }) == keybag else { return nil }
                return try body(prepared, tx)
            }
            if let outcome { return outcome }
        }
    }
}
