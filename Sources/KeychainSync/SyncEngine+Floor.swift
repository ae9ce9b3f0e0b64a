import Foundation
import KeychainCore

extension SyncEngine {
    /// Fetches every record of the keychain's account in one statement and opens each (unwraps
    /// its item key, decrypts and decodes it), applying nothing: the least a first sync must do,
    /// which the benchmark takes as the floor of a first sync.
    ///
    /// - Returns: the number of records opened.
    /// - Throws: `notEnabled`, server errors, `refused` for a record that does not open.
    package static func fetchAndOpenEveryRecord(_ keychain: any KeychainHandle) throws -> Int {
        guard let state = try SyncState.load(from: keychain) else {
            throw SyncError(.notEnabled, "this keychain does not sync (use security sync enable or join)")
        }
        let connection = try PostgresConnection(state.conninfo)
        let rows = try connection.execute(
            "SELECT record_id, parent_key_id, generation, ciphertext, deleted FROM keychain_sync.record ORDER BY change_seq")
        let sealer = RecordSealer(keys: state.keys)
        for row in 0..<rows.count {
            _ = try sealer.open(
                try rows.bytes(row, "ciphertext") ?? Data(), recordID: try rows.uuid(row, "record_id"),
                parent: try rows.uuid(row, "parent_key_id"), generation: try rows.integer(row, "generation"),
                deleted: try rows.boolean(row, "deleted"))
        }
        return rows.count
    }
}
