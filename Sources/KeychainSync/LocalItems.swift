import Foundation
import KeychainCore

/// The keychain's synchronizable items as an exchange sees them, by primary-key digest: each
/// with its content digest, and the item itself once it was opened (an item unchanged since the
/// last exchange is known by its digests alone, `LocalVersions`).
struct LocalItems {
    /// One synchronizable item.
    struct Entry {
        /// Its row's version; nil when the keychain gave none (read through a daemon).
        var version: ItemVersion?
        /// SHA-256 of its encoding (empty for an item just applied and not read back).
        var content: String
        /// The item; nil until opened.
        var item: SyncedItem?
    }

    /// By primary-key digest.
    var entries: [String: Entry] = [:]
    /// What was seen of every row of the synced classes, for the next exchange; nil when the
    /// keychain gave no versions (every exchange then reads every item).
    var versions: LocalVersions?
    /// Synchronizable items whose rows were removed from the database behind the keychain's
    /// back: kept in `entries` as last seen (damage, not deletions).
    var missingItems = 0
    /// Whether the keychain's ledger counts rows the table lacks that could not be told apart
    /// from deletions: no item absent from `entries` is then taken for deleted.
    var withholdsDeletions = false

    /// The items, opened.
    init(items: [String: SyncedItem]) {
        for (primaryKey, item) in items {
            entries[primaryKey] = Entry(version: nil, content: (try? item.contentDigest()) ?? "", item: item)
        }
    }

    init(entries: [String: Entry], versions: LocalVersions?) {
        self.entries = entries
        self.versions = versions
    }

    /// The opened items only, by primary-key digest.
    var openedItems: [String: SyncedItem] { entries.compactMapValues(\.item) }

    /// An item sent to the keychain, with its digests.
    struct Sent {
        var item: SyncedItem
        var primaryKey: String
        var content: String
    }

    /// Records items as the keychain stored them when it added them (`addReturningVersions`),
    /// known without reading them back; `sent` are the items given to the add, in order (a
    /// stored item equal to the one sent has its digests).
    mutating func recordAdded(_ added: [(version: ItemVersion, item: ItemResult)], sent: [Sent]) throws {
        for (index, (version, result)) in added.enumerated() {
            let item = SyncedItem(result)
            guard item.maySync else { continue }
            let primaryKey: String, content: String
            if added.count == sent.count, sent[index].item == item {
                (primaryKey, content) = (sent[index].primaryKey, sent[index].content)
            } else {
                (primaryKey, content) = (try item.primaryKeyDigest(), try item.contentDigest())
            }
            entries[primaryKey] = Entry(version: version, content: content, item: item)
            versions?.entries[version.uuid] = LocalVersions.Entry(version, item: (primaryKey, content))
        }
    }
}

extension SyncEngine {
    /// The keychain's synchronizable items. A keychain in this process lists its rows' versions
    /// first (clear columns, nothing opened); only rows whose version is not in `known` are
    /// opened, the others are taken from `known`. Another keychain is read in full.
    ///
    /// A row that does not open (damaged) keeps what `known` held for it, and is not recorded at
    /// its new generation (it is looked at again next time): a damaged item is neither uploaded
    /// nor taken for a deletion.
    ///
    /// So is a row gone from the database that the keychain's ledger still names (removed
    /// behind the keychain's back, `Keychain.vanishedRows`): its item stays as last seen, and
    /// `missingItems` counts it. Only an item deleted through the keychain is absent. A gone row
    /// whose token was not kept (an earlier release's versions) is kept likewise while the
    /// ledger counts rows the table lacks. With no versions known and rows missing, every item
    /// is read and `withholdsDeletions` set: no absent item is taken for a deletion.
    static func readLocal(
        _ keychain: any KeychainHandle, known: LocalVersions?, mirror: [String: SyncState.MirrorEntry]
    ) throws -> LocalItems {
        guard let embedded = keychain as? EmbeddedKeychain else { return try readThroughItemCalls(keychain, mirror: mirror) }
        do {
            let listing = try embedded.keychain.itemVersions(of: SyncedItem.classes)
            guard known != nil || listing.missingRows == 0 else {
                // Nothing to tell a removed row from a deleted one: every item read, no absent
                // item deleted, and no versions kept (the next exchange asks again).
                var local = LocalItems(items: try localItems(keychain))
                local.withholdsDeletions = true
                return local
            }
            let listed = listing.versions
            let known = known ?? LocalVersions()
            // Starts from what was known (most rows are unchanged), dropping the rows now gone.
            var versions = known
            var entries: [String: LocalItems.Entry] = [:]
            entries.reserveCapacity(listed.count)
            var changed: [ItemVersion] = []
            func keep(_ version: ItemVersion, _ entry: LocalVersions.Entry) {
                if let item = entry.item {
                    entries[item.primaryKey] = LocalItems.Entry(version: version, content: item.content, item: nil)
                }
                // An entry kept without its token (an earlier release's) learns it.
                if entry.token == nil { versions.entries[version.uuid]?.token = version.token }
            }
            var stillThere = 0
            for version in listed {
                guard let entry = known.entries[version.uuid] else {
                    changed.append(version)
                    continue
                }
                stillThere += 1
                if known.isSeen(version, as: entry) {
                    keep(version, entry)
                } else {
                    changed.append(version)
                }
            }
            var missingItems = 0
            if known.entries.count > stillThere {
                let present = Set(listed.map(\.uuid))
                let gone = known.entries.filter { !present.contains($0.key) }
                let vanished = try embedded.keychain.vanishedRows(gone.compactMap { uuid, entry in entry.token.map { (uuid, $0) } })
                for (uuid, entry) in gone {
                    // A row kept without its token cannot be asked after: taken for deleted
                    // unless the ledger counts rows the table lacks.
                    guard entry.token == nil ? listing.missingRows > 0 : vanished.contains(uuid) else {
                        versions.entries[uuid] = nil
                        continue
                    }
                    // Removed behind the keychain's back: kept as last seen, looked at again next time.
                    if let item = entry.item {
                        entries[item.primaryKey] = LocalItems.Entry(version: nil, content: item.content, item: nil)
                        missingItems += 1
                    }
                }
            }
            let opened = try embedded.keychain.openSynchronizableItems(changed, context: embedded.context)
            for version in changed {
                switch opened[version.uuid] {
                case .item(let result, let seen):
                    let item = SyncedItem(result)
                    guard item.maySync else {
                        versions.entries[version.uuid] = LocalVersions.Entry(seen, item: nil)
                        continue
                    }
                    let primaryKey = try item.primaryKeyDigest(), content = try item.contentDigest()
                    versions.entries[version.uuid] = LocalVersions.Entry(seen, item: (primaryKey, content))
                    entries[primaryKey] = LocalItems.Entry(version: seen, content: content, item: item)
                case .local(let seen):
                    versions.entries[version.uuid] = LocalVersions.Entry(seen, item: nil)
                case .damaged:
                    // Kept at the generation known (looked at again next time).
                    if let entry = known.entries[version.uuid] { keep(version, entry) }
                case .notVisible, nil:
                    // Not the caller's, or gone since the listing: not recorded.
                    versions.entries[version.uuid] = nil
                }
            }
            var local = LocalItems(entries: entries, versions: versions)
            local.missingItems = missingItems
            return local
        } catch let error as KeychainError {
            throw SyncError(.keychain, "cannot read the keychain's synchronizable items: \(error)")
        }
    }

    /// The synchronizable items of a keychain reached through the item calls alone (keychaind),
    /// every one read. A search that reads a class leaves out a row removed behind the
    /// keychain's back, so when the mirror holds items the keychain no longer shows (an
    /// exchange would take them for deleted), the keychain is asked for its damage: while its
    /// ledger counts rows its table lacks, no absent item is taken for deleted.
    static func readThroughItemCalls(_ keychain: any KeychainHandle, mirror: [String: SyncState.MirrorEntry]) throws -> LocalItems {
        var local = LocalItems(items: try localItems(keychain))
        guard mirror.values.contains(where: { local.entries[$0.primaryKey] == nil }) else { return local }
        do {
            local.withholdsDeletions = try keychain.allItemsWithDamage(includingData: false).damage.missingItems > 0
        } catch {
            throw SyncError(.keychain, "cannot read the keychain's damage: \(error)")
        }
        return local
    }

    /// Opens the items of `primaryKeys` that `local` knows by digests only.
    static func open(_ primaryKeys: [String], in local: inout LocalItems, keychain: any KeychainHandle) throws {
        let wanted = primaryKeys.compactMap { key in local.entries[key].flatMap { $0.item == nil ? $0.version : nil } }
        guard !wanted.isEmpty, let embedded = keychain as? EmbeddedKeychain else { return }
        let opened: [Data: OpenedSynchronizableItem]
        do {
            opened = try embedded.keychain.openSynchronizableItems(wanted, context: embedded.context)
        } catch let error as KeychainError {
            throw SyncError(.keychain, "cannot read a synchronizable item: \(error)")
        }
        for primaryKey in primaryKeys {
            guard let version = local.entries[primaryKey]?.version, case .item(let result, _) = opened[version.uuid] else { continue }
            let item = SyncedItem(result)
            // The row changed since it was listed: the next exchange sees its new version.
            guard item.maySync, try item.primaryKeyDigest() == primaryKey else { continue }
            local.entries[primaryKey]?.item = item
        }
    }
}
