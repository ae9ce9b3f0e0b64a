import Foundation

/// The query planner's choice of the search index, and the index's upkeep for rows written
/// before it existed.
extension Keychain {
    /// Which plan each search of this keychain (in this process) took so far.
    public var queryPlanStatistics: QueryPlanStatistics { planStatistics.withLock { $0 } }

    func recordPlan(_ plan: QueryPlanStatistics.Plan) {
        planStatistics.withLock { $0.record(plan) }
    }

    /// The indexed attributes a planner prefers to drive a search with, most selective first:
    /// values that name one item or a few (an application label, an account, a tag, a server, a
    /// serial number) before those many items share (a service, a label, a group), and numbers
    /// (a port, a key size: few distinct values) last.
    private static let selectivity: [AttributeDescriptor] = [
        .applicationLabel, .account, .applicationTag, .serialNumber, .server, .issuer, .service, .label, .path,
        .securityDomain, .accessGroup,
    ]

    /// The search-index tokens a query's rows must hold, the most selective first (at most
    /// `KeychainStore.maximumSearchTokens`); nil when the query names no indexed attribute, or
    /// compares text case-insensitively (a token matches exact values only): it reads its class.
    func searchIndexTokens(for request: ItemRequest, in tx: KeychainStore.Transaction) throws -> [Data]? {
        guard options.usesSearchIndex, !request.caseInsensitive, !request.attributes.isEmpty else { return nil }
        let indexed = AttributeCatalog.searchIndexed(of: request.itemClass).filter { request.attributes.contains($0) }
        guard !indexed.isEmpty else { return nil }
        let ranked = indexed.sorted { left, right in
            let leftRank = Self.selectivity.firstIndex(of: left) ?? Self.selectivity.count
            let rightRank = Self.selectivity.firstIndex(of: right) ?? Self.selectivity.count
            return leftRank < rightRank
        }
        return try ranked.prefix(KeychainStore.maximumSearchTokens).map { attribute in
            try tx.searchToken(itemClass: request.itemClass, attribute: attribute, value: request.attributes[attribute]!)
        }
    }

    /// How many rows one transaction of `indexPendingRows` indexes: the upgrade streams through
    /// the table, holding the write lock for a short while at a time.
    static let indexingBatch = 256

    /// Enters rows written before the search index existed into it, a batch per transaction,
    /// for every class whose keys are available (the others wait for the next unlock: until
    /// then every search of their class considers them, so answers are the same). A row that
    /// does not open (locked, damaged, rolled back) is left as it is. Returns how many rows were
    /// indexed.
    ///
    /// It is an optimisation, so it gives way: a storage failure (a read-only or full disk)
    /// stops it quietly and the rows wait.
    @discardableResult
    func indexPendingRows() -> Int {
        var indexed = 0
        do {
            guard try store.snapshot({ try $0.hasUnindexedRows() }) else { return 0 }
            for itemClass in ItemClass.stored {
                var after: Int64 = 0
                while true {
                    let (count, last) = try writing { tx -> (Int, Int64?) in
                        let rows = try tx.unindexedRows(itemClass: itemClass, after: after, limit: Self.indexingBatch)
                        var count = 0
                        for var row in rows {
                            row.isCurrent = try tx.isCurrent(row)
                            // A row that does not open now (locked or damaged) is indexed later.
                            guard case .opened(let record) = store.open(row) else { continue }
                            try tx.index(record)
                            count += 1
                        }
                        return (count, rows.last?.rowID)
                    }
                    indexed += count
                    guard let last else { break }
                    after = last
                }
            }
        } catch {
            return indexed
        }
        return indexed
    }
}
