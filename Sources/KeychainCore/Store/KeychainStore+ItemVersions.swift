import Foundation
import KeychainSQLite

extension KeychainStore {
    /// The row number, class, UUID, generation and primary-key token of every row of `classes`, read from the rows' clear
    /// columns: nothing is opened, and nothing is read that the file does not show without keys.
    func itemVersions(of classes: [ItemClass], in connection: SQLiteConnection) throws -> [ItemVersion] {
        guard !classes.isEmpty else { return [] }
        let list = classes.map { _ in "?" }.joined(separator: ", ")
        return try connection.statement("SELECT rowid, class, uuid, gen, pk FROM items WHERE class IN (\(list)) ORDER BY rowid")
            .bind(classes.map { .text($0.rawValue) })
            .rows { statement -> ItemVersion? in
                guard let itemClass = statement.text(1).flatMap(ItemClass.init(rawValue:)), let uuid = statement.blob(2),
                    let token = statement.blob(4)
                else { return nil }
                return ItemVersion(rowID: statement.int64(0), itemClass: itemClass, uuid: uuid, generation: statement.int64(3), token: token)
            }
            .compactMap { $0 }
    }
}

extension KeychainStore.Transaction {
    /// `KeychainStore.itemVersions(of:in:)` in this transaction.
    func itemVersions(of classes: [ItemClass]) throws -> [ItemVersion] { try store.itemVersions(of: classes, in: connection) }
}
