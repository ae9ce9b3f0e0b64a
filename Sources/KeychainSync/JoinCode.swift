import Foundation

/// The code of a join by approval. The joining device draws 8 random digits and shows them; its
/// join request on the server holds only a **verifier**: a key derived by scrypt (N = 2^15,
/// r = 8, p = 1) from the code, salted with the account id and the joining device's id and
/// public points. A trusted device given the code computes the same from the request it sees
/// and approves only the request whose verifier matches, so the code binds both: the account
/// the approver is in, and the keys the joining device showed it next to. The approval carries
/// a tag keyed by the same derivation, which the joining device checks, so a share the server
/// makes up is refused. Finding the code from a verifier takes up to 10^8 scrypt runs; a join
/// waits minutes, not that long.
enum JoinCode {
    /// Digits in a code.
    static let digits = 8
    /// scrypt's cost (log2 of N).
    static let cost = 15

    /// A new code: 8 uniformly random digits, shown as `1234-5678`.
    static func newCode() throws -> String {
        let limit: UInt32 = 4_200_000_000  // a multiple of 10^8 below 2^32
        while true {
            let number = try SyncCrypto.random(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            guard number < limit else { continue }
            let text = String(format: "%08u", number % 100_000_000)
            return text.prefix(4) + "-" + text.suffix(4)
        }
    }

    /// The digits of a typed code (dashes and spaces do not matter); nil unless it has exactly
    /// `digits` digits and nothing else.
    static func normalized(_ text: String) -> String? {
        let kept = text.filter { $0 != "-" && $0 != " " }
        guard kept.count == digits, kept.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return kept
    }

    /// scrypt of the code's digits, salted with the account and the joining device's identity.
    static func stretch(_ code: String, accountID: UUID, deviceID: UUID, signing: Data, agreement: Data) throws -> Data {
        var salt = AssociatedData("swift-keychain sync join code v1")
        salt.append(accountID)
        salt.append(deviceID)
        salt.append(signing)
        salt.append(agreement)
        return try SyncCrypto.stretch(Data((normalized(code) ?? code).utf8), salt: SyncCrypto.sha256(salt.bytes), log2N: cost)
    }

    /// What the join request stores: it reveals neither the code nor the approval key.
    static func verifier(_ stretched: Data) throws -> Data {
        try SyncCrypto.derive(stretched, purpose: "swift-keychain sync join verifier")
    }

    /// The approver's tag over its identity and the TLK it shares, keyed by the code.
    static func approvalTag(
        _ stretched: Data, accountID: UUID, approver: UUID, approverSigning: Data, joiner: UUID, keyID: UUID
    ) throws -> Data {
        var message = AssociatedData("swift-keychain sync join approval v1")
        message.append(accountID)
        message.append(approver)
        message.append(approverSigning)
        message.append(joiner)
        message.append(keyID)
        return try SyncCrypto.authenticationCode(
            message.bytes, key: SyncCrypto.derive(stretched, purpose: "swift-keychain sync join approval"))
    }

    /// What the joining device signs for its request (proof that it holds the request's keys).
    static func requestMessage(accountID: UUID, deviceID: UUID, signing: Data, agreement: Data, verifier: Data) -> Data {
        var message = AssociatedData("swift-keychain sync join request v1")
        message.append(accountID)
        message.append(deviceID)
        message.append(signing)
        message.append(agreement)
        message.append(verifier)
        return message.bytes
    }
}
