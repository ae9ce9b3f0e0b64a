import Foundation

/// What one sync exchange `keychaind` ran did (`ServiceOperation.syncNow`): the sync engine's
/// report as the wire carries it (`int` uploaded, `int` uploaded deletions, `int` applied,
/// `int` applied deletions, `[string]` refusals, `bool` full refetch, `bool` damaged locally).
public struct SyncExchangeReport: Sendable, Equatable {
    /// Local additions and changes uploaded.
    public var uploaded: Int
    /// Local deletions uploaded (and losing duplicates removed from the server).
    public var uploadedDeletions: Int
    /// Records from other devices applied (added or changed locally).
    public var applied: Int
    /// Deletions from other devices applied.
    public var appliedDeletions: Int
    /// Why records from the server were refused (each names the record, never its content).
    public var refused: [String]
    /// Whether every record was fetched again (the device's last change sequence was below the
    /// server's tombstone horizon).
    public var fullRefetch: Bool
    /// Whether synchronizable rows were found removed from the keychain's database behind its
    /// back (their items were neither uploaded nor taken for deleted).
    public var damagedLocally: Bool

    /// A report with these counts.
    public init(
        uploaded: Int, uploadedDeletions: Int, applied: Int, appliedDeletions: Int, refused: [String], fullRefetch: Bool,
        damagedLocally: Bool = false
    ) {
        self.uploaded = uploaded
        self.uploadedDeletions = uploadedDeletions
        self.applied = applied
        self.appliedDeletions = appliedDeletions
        self.refused = refused
        self.fullRefetch = fullRefetch
        self.damagedLocally = damagedLocally
    }
}

extension SyncExchangeReport: WireCodable {
    /// Writes every field.
    public func encode(to writer: inout WireWriter) {
        writer.int(uploaded)
        writer.int(uploadedDeletions)
        writer.int(applied)
        writer.int(appliedDeletions)
        writer.array(refused) { $0.string($1) }
        writer.bool(fullRefetch)
        writer.bool(damagedLocally)
    }

    /// Reads every field; a negative count is refused.
    public init(from reader: inout WireReader) throws {
        self.init(
            uploaded: try reader.count(), uploadedDeletions: try reader.count(), applied: try reader.count(),
            appliedDeletions: try reader.count(), refused: try reader.array { try $0.string() }, fullRefetch: try reader.bool(),
            damagedLocally: try reader.bool())
    }
}
