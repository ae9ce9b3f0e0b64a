import Foundation

/// What a record holds once opened: an item, or the mark of its deletion.
enum RecordContents {
    case item(SyncedItem)
    case deleted
}

/// Seals and opens records. A record's ciphertext is a version byte, its item key wrapped by its
/// class key, and the padded contents sealed by the item key; both seals bind the account, the
/// record id, the parent (class) key id, the generation and whether it is a deletion, so a
/// ciphertext moved to another record, account, parent or generation does not open.
struct RecordSealer {
    static let version: UInt8 = 1
    private static let deletionMark = Data("KSD1".utf8)

    let keys: AccountKeys

    /// The ciphertext of `contents` as record `recordID` at `generation` under `classKey`.
    func seal(_ contents: RecordContents, recordID: UUID, generation: Int64, classKey: AccountKeys.Key) throws -> Data {
        let itemKey = try SyncCrypto.newKey()
        let deleted: Bool
        let plaintext: Data
        switch contents {
        case .item(let item):
            (deleted, plaintext) = (false, item.encoded())
        case .deleted:
            (deleted, plaintext) = (true, Self.deletionMark)
        }
        let aad = associatedData(recordID: recordID, parent: classKey.id, generation: generation, deleted: deleted)
        let wrapped = try SyncCrypto.seal(itemKey, key: classKey.bytes, aad: aad)
        let body = try SyncCrypto.seal(SyncCrypto.pad(plaintext), key: itemKey, aad: aad)
        return Data([Self.version]) + wrapped + body
    }

    /// Opens a record row.
    ///
    /// - Throws: `SyncError.refused` when the parent key is unknown or anything does not
    ///   authenticate or decode.
    func open(_ ciphertext: Data, recordID: UUID, parent: UUID, generation: Int64, deleted: Bool) throws -> RecordContents {
        guard let classKey = keys.classKey(id: parent) else {
            throw SyncError(.refused, "record \(recordID) names a parent key this account does not have")
        }
        let wrappedLength = SyncCrypto.keyLength + SyncCrypto.boxOverhead
        guard ciphertext.count > 1 + wrappedLength, ciphertext.first == Self.version else {
            throw SyncError(.refused, "record \(recordID) is malformed")
        }
        let aad = associatedData(recordID: recordID, parent: parent, generation: generation, deleted: deleted)
        do {
            let itemKey = try SyncCrypto.open(Data(ciphertext.dropFirst().prefix(wrappedLength)), key: classKey.bytes, aad: aad)
            let padded = try SyncCrypto.open(Data(ciphertext.dropFirst(1 + wrappedLength)), key: itemKey, aad: aad)
            let plaintext = try SyncCrypto.unpad(padded)
            if deleted {
                guard plaintext == Self.deletionMark else { throw SyncError(.refused, "not a deletion") }
                return .deleted
            }
            return .item(try SyncedItem.decode(plaintext))
        } catch {
            throw SyncError(.refused, "record \(recordID) does not authenticate (changed, moved or replayed by the server)")
        }
    }

    private func associatedData(recordID: UUID, parent: UUID, generation: Int64, deleted: Bool) -> Data {
        var aad = AssociatedData("swift-keychain sync record v1")
        aad.append(keys.accountID)
        aad.append(recordID)
        aad.append(parent)
        aad.append(generation)
        aad.append(Int64(deleted ? 1 : 0))
        return aad.bytes
    }
}
