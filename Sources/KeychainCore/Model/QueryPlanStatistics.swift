/// How a keychain answered the searches it was asked, by plan: a debugging count that tests read
/// to prove which plan a query takes (`Keychain.queryPlanStatistics`).
public struct QueryPlanStatistics: Equatable, Sendable {
    /// Searches answered by the primary-key token (one point lookup per group and flag).
    public var primaryKey = 0
    /// Searches answered by a persistent reference (one row by its UUID or row id).
    public var persistentReference = 0
    /// Searches answered from the search index (the rows holding the query's tokens).
    public var searchIndex = 0
    /// Searches that read every row of their class.
    public var scan = 0
    /// Rows the searches read from the database and judged (decrypting those their clear
    /// columns do not rule out), whatever the plan.
    public var rowsExamined = 0

    /// No search yet.
    public init() {}

    /// The plans a keychain chooses from.
    enum Plan {
        case primaryKey, persistentReference, searchIndex, scan
    }

    mutating func record(_ plan: Plan) {
        switch plan {
        case .primaryKey: primaryKey += 1
        case .persistentReference: persistentReference += 1
        case .searchIndex: searchIndex += 1
        case .scan: scan += 1
        }
    }
}
