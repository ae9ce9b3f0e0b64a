import Foundation
import Synchronization

/// Private keys the keychain holds in memory only: a key generated without
/// `kSecAttrIsPermanent` whose access control the keychain must enforce (a Secure Enclave key
/// with constraints, as CryptoKit's `SecureEnclave.P256` makes). Each entry keeps the key's
/// stored representation (a token key's TPM blob) and an `ItemRecord` never written anywhere, so
/// no search, dump, backup or sync ever sees it. An entry belongs to the caller that made it
/// (`AccessContext.peer`): another caller presenting its handle is told the key does not exist.
///
/// A caller holds at most `capacityPerOwner` keys at once; past it, a new key is refused
/// (`errSecAllocate`) until the caller forgets one (releasing its `SecKey`), rather than
/// silently invalidating a key still in use. Entries go when their owner forgets them, when the
/// keychain is told the owner is gone (`removeOwners(where:)`), and with the process holding
/// the keychain.
final class EphemeralHeldKeys: Sendable {
    /// One key.
    struct Entry: Sendable {
        /// Who made it (`AccessContext.peer`).
        var owner: String?
        /// The key's attributes and access control, as a stored item's would be.
        var record: ItemRecord
        /// The key's stored representation (a token key's TPM blob).
        var secret: Data
    }

    /// The most keys one caller holds at once.
    static let capacityPerOwner = 256

    /// The bytes every handle starts with; a persistent reference never does (it is 12 or 20
    /// bytes of class tag and UUID, and a handle is longer than both).
    private static let magic = Data("KCEPHK01".utf8)

    private let table = Mutex([Data: Entry]())

    init() {}

    /// Whether `handle` has the shape of an ephemeral key's handle.
    static func isHandle(_ handle: Data) -> Bool { handle.count == magic.count + 32 && handle.starts(with: magic) }

    /// Keeps `record` and `secret` for `owner`; returns the key's handle (the magic, then 32
    /// random bytes).
    ///
    /// - Throws: `errSecAllocate` when `owner` already holds `capacityPerOwner` keys.
    func insert(record: ItemRecord, secret: Data, owner: String?) throws -> Data {
        let handle = Self.magic + (try SecureRandom.data(count: 32))
        var record = record
        record.uuid = handle
        let entry = Entry(owner: owner, record: record, secret: secret)
        try table.withLock { table in
            guard table.values.lazy.filter({ $0.owner == owner }).count < Self.capacityPerOwner else {
                throw KeychainError(.allocate, "the caller holds too many keys that are not stored; release some first")
            }
            table[handle] = entry
        }
        return handle
    }

    /// The key `handle` names, if it belongs to `owner`.
    func entry(_ handle: Data, owner: String?) -> Entry? {
        table.withLock { table in table[handle].flatMap { $0.owner == owner ? $0 : nil } }
    }

    /// Forgets the key `handle` names, if it belongs to `owner`; returns whether it did.
    @discardableResult
    func remove(_ handle: Data, owner: String?) -> Bool {
        table.withLock { table in
            guard table[handle]?.owner == owner else { return false }
            var removed = table.removeValue(forKey: handle)
            removed?.secret.wipe()
            return removed != nil
        }
    }

    /// Forgets every key whose owner `gone` says has ended (asked once per owner, outside the
    /// table's lock).
    func removeOwners(where gone: (String?) -> Bool) {
        let owners = table.withLock { Set($0.values.map(\.owner)) }
        let ended = owners.filter(gone)
        guard !ended.isEmpty else { return }
        table.withLock { table in
            for (handle, entry) in table where ended.contains(entry.owner) {
                var removed = table.removeValue(forKey: handle)
                removed?.secret.wipe()
            }
        }
    }

    /// How many keys `owner` holds.
    func count(owner: String?) -> Int { table.withLock { $0.values.filter { $0.owner == owner }.count } }
}
