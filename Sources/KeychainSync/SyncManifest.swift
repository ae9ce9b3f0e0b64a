import Foundation

/// The account's signed manifest: the exact set of live records on the server, as the device that
/// last uploaded left it. One row per account (table `manifest`), replaced by every upload in the
/// same transaction as the records, with compare-and-swap on its version.
///
/// The manifest holds a version (+1 at each upload), the number of live records, the SHA-256 of
/// the sorted list of their (record id, generation), the id of the device that wrote it, and an
/// HMAC-SHA256 over all of these under a key derived from the TLK (HKDF-SHA256, "manifest"). The
/// server, which has no TLK, can neither make one nor change one.
///
/// A device checks it at every download, against the set it builds from what it already knew and
/// what the change feed brought (all in one snapshot): a record the server withholds from the feed
/// (dropped from a batch, deleted from the table, a change or a deletion hidden) or adds makes the
/// sets differ, and the download is refused before anything is applied. A manifest older than one
/// the device already verified (an account rolled back as a whole) is refused too.
struct SyncManifest: Equatable {
    /// The upload count, starting at 1 when the account is created.
    let version: Int64
    /// The number of live (not deleted) records.
    let count: Int64
    /// SHA-256 of the live records' ids and generations, sorted by id.
    let digest: Data
    /// The device that wrote it.
    let signer: UUID
    /// The TLK holders' code over the fields above and the account id.
    let code: Data

    /// The manifest of `records` (live record id in lower-case text → generation) at `version`.
    static func make(version: Int64, records: [String: Int64], signer: UUID, keys: AccountKeys) throws -> SyncManifest {
        let digest = try digest(of: records)
        let count = Int64(records.count)
        let code = try authenticationCode(version: version, count: count, digest: digest, signer: signer, keys: keys)
        return SyncManifest(version: version, count: count, digest: digest, signer: signer, code: code)
    }

    /// Whether a holder of `keys` wrote this manifest.
    func isAuthentic(keys: AccountKeys) -> Bool {
        guard let expected = try? Self.authenticationCode(version: version, count: count, digest: digest, signer: signer, keys: keys) else {
            return false
        }
        return SyncCrypto.equal(code, expected)
    }

    /// Whether it describes exactly `records`.
    func describes(_ records: [String: Int64]) throws -> Bool {
        let expected = try Self.digest(of: records)
        return count == Int64(records.count) && SyncCrypto.equal(digest, expected)
    }

    /// SHA-256 over the count, then each record's id (16 bytes) and generation, by id.
    static func digest(of records: [String: Int64]) throws -> Data {
        var message = AssociatedData("swift-keychain sync manifest set v1")
        message.append(Int64(records.count))
        for (key, generation) in records.sorted(by: { $0.key < $1.key }) {
            guard let id = UUID(uuidString: key) else { throw SyncError(.keychain, "the sync state holds a malformed record id") }
            message.append(id)
            message.append(generation)
        }
        return try SyncCrypto.sha256(message.bytes)
    }

    private static func authenticationCode(version: Int64, count: Int64, digest: Data, signer: UUID, keys: AccountKeys) throws -> Data {
        var message = AssociatedData("swift-keychain sync manifest v1")
        message.append(keys.accountID)
        message.append(version)
        message.append(count)
        message.append(digest)
        message.append(signer)
        return try SyncCrypto.authenticationCode(message.bytes, key: SyncCrypto.derive(keys.topLevel.bytes, purpose: "manifest"))
    }
}
