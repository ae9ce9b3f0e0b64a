import Foundation

/// The escrow of an account's TLK under a recovery secret: scrypt (N = 2^15, r = 8, p = 1) of the
/// secret with a random salt gives an AES-256-GCM key, which seals the TLK and its identifier,
/// bound to the account, the salt and the cost. The server stores the bottle; without the secret
/// (130 random bits) it cannot open it.
enum RecoveryBottle {
    /// scrypt's cost (log2 of N).
    static let cost = 15
    /// Characters of the secret between dashes.
    static let groupLength = 4
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")

    /// A new recovery secret: 26 base-32 characters (130 bits) in dash-separated groups.
    static func newSecret() throws -> String {
        let bytes = try SyncCrypto.random(26)
        let characters = bytes.map { alphabet[Int($0 & 31)] }
        return stride(from: 0, to: characters.count, by: groupLength).map {
            String(characters[$0..<min($0 + groupLength, characters.count)])
        }.joined(separator: "-")
    }

    /// The secret as the KDF reads it: letters and digits only, lower case (dashes, spaces and
    /// line ends in a secret file do not matter).
    static func normalized(_ text: String) -> Data {
        Data(text.lowercased().filter { $0.isLetter || $0.isNumber }.utf8)
    }

    /// Seals `topLevel` for `accountID` under `secret`; returns (salt, bottle).
    static func seal(_ topLevel: AccountKeys.Key, accountID: UUID, secret: String) throws -> (salt: Data, bottle: Data) {
        let salt = try SyncCrypto.random(16)
        let key = try SyncCrypto.stretch(normalized(secret), salt: salt, log2N: cost)
        var contents = Data()
        withUnsafeBytes(of: topLevel.id.uuid) { contents.append(contentsOf: $0) }
        contents.append(topLevel.bytes)
        return (salt, try SyncCrypto.seal(contents, key: key, aad: aad(accountID, salt, cost)))
    }

    /// The TLK in `bottle`.
    ///
    /// - Throws: `SyncError.wrongRecoverySecret` when `secret` does not open it.
    static func open(_ bottle: Data, salt: Data, cost: Int, accountID: UUID, secret: String) throws -> AccountKeys.Key {
        let key = try SyncCrypto.stretch(normalized(secret), salt: salt, log2N: cost)
        guard let contents = try? SyncCrypto.open(bottle, key: key, aad: aad(accountID, salt, cost)),
            contents.count == 16 + SyncCrypto.keyLength
        else {
            throw SyncError(.wrongRecoverySecret, "the recovery secret does not open this account's escrow: nothing was joined")
        }
        let id = contents.prefix(16).withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        return AccountKeys.Key(id: id, bytes: Data(contents.suffix(SyncCrypto.keyLength)))
    }

    private static func aad(_ account: UUID, _ salt: Data, _ cost: Int) -> Data {
        var aad = AssociatedData("swift-keychain sync bottle v1")
        aad.append(account)
        aad.append(salt)
        aad.append(Int64(cost))
        return aad.bytes
    }
}
