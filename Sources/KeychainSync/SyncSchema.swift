import Foundation

/// The server's schema, versioned: `install` creates it or upgrades it to `currentVersion`.
///
/// Everything lives in the schema `keychain_sync`. An account is a PostgreSQL role: every row has
/// an `owner` column set to the role that wrote it, and row-level security lets a role see and
/// write only its own rows, so accounts are isolated by the server itself (the administrator
/// creates one login role per account; `init-server` runs as the schema's owner).
///
/// Tables: `account` (one row per role: the account id and the recovery escrow), `device` (each
/// device's public keys and the TLK holders' vouch), `device_list` (each device's signed list of
/// the devices it trusts), `key_share` (keys sent to a device, for approval by another device),
/// `sync_key` (the class keys wrapped by the TLK), `record` (one row per record: id, parent key
/// id, generation, ciphertext, a deletion flag and its change sequence number; a deleted record
/// stays as a tombstone so other devices learn of the deletion), and from version 2
/// `join_request` (a joining device's public keys and its code's verifier, until a trusted
/// device approves it), `account.key_epoch` (raised by each key roll) and `device_list.key_id`
/// (the TLK a list was signed under).
///
/// Version 3 adds the operations: `record.changed_at` (when a row was last written),
/// `account.gc_horizon` (the highest change sequence of a tombstone collected), the function
/// `collect_tombstones(lifetime)` that removes the calling role's tombstones older than `lifetime`
/// (30 days by default) and raises its horizon, and `manifest` (the account's signed list of live
/// records, `SyncManifest`).
///
/// Version 4 adds `checkpoint` (each device's signed claim of the newest manifest it has seen,
/// `SyncCheckpoint`; removed with its device), for fork detection.
package enum SyncSchema {
    /// The version this build writes.
    package static let currentVersion = 4

    /// The statements that bring version `n - 1` to `n`, by `n`.
    static let migrations: [Int: [String]] = [
        1: [
            "CREATE SEQUENCE keychain_sync.change_seq",
            """
            CREATE TABLE keychain_sync.account (
                owner name PRIMARY KEY DEFAULT current_user,
                account_id uuid NOT NULL UNIQUE,
                bottle_salt bytea NOT NULL,
                bottle_cost integer NOT NULL,
                bottle bytea NOT NULL)
            """,
            """
            CREATE TABLE keychain_sync.device (
                owner name NOT NULL DEFAULT current_user REFERENCES keychain_sync.account (owner),
                device_id uuid NOT NULL,
                signing_key bytea NOT NULL,
                agreement_key bytea NOT NULL,
                vouch bytea NOT NULL,
                PRIMARY KEY (owner, device_id))
            """,
            """
            CREATE TABLE keychain_sync.device_list (
                owner name NOT NULL DEFAULT current_user,
                signer uuid NOT NULL,
                devices bytea NOT NULL,
                signature bytea NOT NULL,
                PRIMARY KEY (owner, signer),
                FOREIGN KEY (owner, signer) REFERENCES keychain_sync.device (owner, device_id))
            """,
            """
            CREATE TABLE keychain_sync.key_share (
                owner name NOT NULL DEFAULT current_user,
                receiver uuid NOT NULL,
                sender uuid NOT NULL,
                key_id uuid NOT NULL,
                wrapped bytea NOT NULL,
                signature bytea NOT NULL,
                PRIMARY KEY (owner, receiver, key_id))
            """,
            """
            CREATE TABLE keychain_sync.sync_key (
                owner name NOT NULL DEFAULT current_user REFERENCES keychain_sync.account (owner),
                key_id uuid NOT NULL,
                key_class text NOT NULL CHECK (key_class IN ('classA', 'classC')),
                parent_key_id uuid NOT NULL,
                wrapped bytea NOT NULL,
                PRIMARY KEY (owner, key_id))
            """,
            """
            CREATE TABLE keychain_sync.record (
                owner name NOT NULL DEFAULT current_user REFERENCES keychain_sync.account (owner),
                record_id uuid NOT NULL,
                parent_key_id uuid NOT NULL,
                generation bigint NOT NULL CHECK (generation > 0),
                ciphertext bytea NOT NULL,
                deleted boolean NOT NULL DEFAULT false,
                change_seq bigint NOT NULL DEFAULT nextval('keychain_sync.change_seq'),
                PRIMARY KEY (owner, record_id))
            """,
            "CREATE INDEX record_changes ON keychain_sync.record (owner, change_seq)",
        ] + ["account", "device", "device_list", "key_share", "sync_key", "record"].flatMap { table in
            [
                "ALTER TABLE keychain_sync.\(table) ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY own_rows ON keychain_sync.\(table) USING (owner = current_user) WITH CHECK (owner = current_user)",
                "GRANT SELECT, INSERT, UPDATE, DELETE ON keychain_sync.\(table) TO PUBLIC",
            ]
        } + [
            "GRANT USAGE ON SEQUENCE keychain_sync.change_seq TO PUBLIC",
            "GRANT USAGE ON SCHEMA keychain_sync TO PUBLIC",
            "GRANT SELECT ON keychain_sync.schema_version TO PUBLIC",
        ],
        // Device trust: the account's key epoch (raised by each key roll), the TLK a device
        // list was signed under, and the join requests waiting for a trusted device's approval.
        2: [
            "ALTER TABLE keychain_sync.account ADD COLUMN key_epoch bigint NOT NULL DEFAULT 1",
            "ALTER TABLE keychain_sync.device_list ADD COLUMN key_id uuid",
            """
            CREATE TABLE keychain_sync.join_request (
                owner name NOT NULL DEFAULT current_user REFERENCES keychain_sync.account (owner),
                device_id uuid NOT NULL,
                signing_key bytea NOT NULL,
                agreement_key bytea NOT NULL,
                verifier bytea NOT NULL,
                signature bytea NOT NULL,
                PRIMARY KEY (owner, device_id))
            """,
            "ALTER TABLE keychain_sync.join_request ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY own_rows ON keychain_sync.join_request USING (owner = current_user) WITH CHECK (owner = current_user)",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON keychain_sync.join_request TO PUBLIC",
        ],
        3: operationsMigration,
        4: [
            """
            CREATE TABLE keychain_sync.checkpoint (
                owner name NOT NULL DEFAULT current_user,
                device_id uuid NOT NULL,
                version bigint NOT NULL CHECK (version > 0),
                fingerprint bytea NOT NULL,
                signature bytea NOT NULL,
                PRIMARY KEY (owner, device_id),
                FOREIGN KEY (owner, device_id) REFERENCES keychain_sync.device (owner, device_id) ON DELETE CASCADE)
            """,
            "ALTER TABLE keychain_sync.checkpoint ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY own_rows ON keychain_sync.checkpoint USING (owner = current_user) WITH CHECK (owner = current_user)",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON keychain_sync.checkpoint TO PUBLIC",
        ],
    ]

    /// Tombstone collection with a horizon, and the signed manifest.
    static let operationsMigration: [String] = [
        "ALTER TABLE keychain_sync.account ADD COLUMN gc_horizon bigint NOT NULL DEFAULT 0",
        "ALTER TABLE keychain_sync.record ADD COLUMN changed_at timestamptz NOT NULL DEFAULT now()",
        "CREATE INDEX record_tombstones ON keychain_sync.record (owner, changed_at) WHERE deleted",
        """
        CREATE TABLE keychain_sync.manifest (
            owner name PRIMARY KEY DEFAULT current_user REFERENCES keychain_sync.account (owner),
            version bigint NOT NULL CHECK (version > 0),
            record_count bigint NOT NULL,
            digest bytea NOT NULL,
            signer uuid NOT NULL,
            code bytea NOT NULL)
        """,
        "ALTER TABLE keychain_sync.manifest ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY own_rows ON keychain_sync.manifest USING (owner = current_user) WITH CHECK (owner = current_user)",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON keychain_sync.manifest TO PUBLIC",
        // Runs as the caller (row-level security applies): removes the caller's tombstones older
        // than `lifetime` and records the highest change sequence removed as the horizon (the
        // account's row is written only when a tombstone went); a device whose last sequence is
        // below it fetches every record again. Returns how many tombstones it removed.
        """
        CREATE FUNCTION keychain_sync.collect_tombstones(lifetime interval DEFAULT interval '30 days')
        RETURNS bigint LANGUAGE sql SECURITY INVOKER AS $$
            WITH gone AS (
                DELETE FROM keychain_sync.record
                WHERE owner = current_user AND deleted AND changed_at < now() - lifetime
                RETURNING change_seq),
            raised AS (
                UPDATE keychain_sync.account SET gc_horizon = greatest(gc_horizon, (SELECT max(change_seq) FROM gone))
                WHERE owner = current_user AND EXISTS (SELECT 1 FROM gone)
                RETURNING 1)
            SELECT count(*) FROM gone
        $$
        """,
        "GRANT EXECUTE ON FUNCTION keychain_sync.collect_tombstones(interval) TO PUBLIC",
    ]

    /// What `install` did.
    package enum Outcome: Equatable, Sendable {
        case created
        case upgraded(from: Int)
        case current
    }

    /// Creates the schema or upgrades it, in one transaction (an advisory lock orders concurrent
    /// installs).
    ///
    /// - Throws: `SyncError.schemaMismatch` when the server's schema is newer than this build.
    package static func install(on connection: PostgresConnection) throws -> Outcome {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock(7242001)")
            try connection.execute("CREATE SCHEMA IF NOT EXISTS keychain_sync")
            try connection.execute("CREATE TABLE IF NOT EXISTS keychain_sync.schema_version (version integer NOT NULL)")
            let rows = try connection.execute("SELECT max(version) AS version FROM keychain_sync.schema_version")
            let found = try rows.text(0, "version").flatMap { Int($0) } ?? 0
            guard found <= currentVersion else {
                throw SyncError(.schemaMismatch, "the server's sync schema is version \(found), newer than this tool's \(currentVersion)")
            }
            if found == currentVersion { return .current }
            for version in (found + 1)...currentVersion {
                for statement in migrations[version] ?? [] { try connection.execute(statement) }
            }
            try connection.execute("DELETE FROM keychain_sync.schema_version")
            try connection.execute("INSERT INTO keychain_sync.schema_version VALUES ($1::bigint)", [.integer(Int64(currentVersion))])
            return found == 0 ? .created : .upgraded(from: found)
        }
    }

    /// Checks that the server's schema is this build's version.
    ///
    /// - Throws: `SyncError.schemaMismatch` naming `security sync init-server`.
    static func requireCurrent(on connection: PostgresConnection) throws {
        let rows: PostgresRows
        do {
            rows = try connection.execute("SELECT max(version) AS version FROM keychain_sync.schema_version")
        } catch let error as SyncError where error.sqlState == "42P01" || error.sqlState == "3F000" {
            throw SyncError(.schemaMismatch, "the server has no sync schema (run security sync init-server)")
        }
        let version = try rows.text(0, "version").flatMap { Int($0) } ?? 0
        guard version == currentVersion else {
            throw SyncError(.schemaMismatch, "the server's sync schema is version \(version), this tool needs \(currentVersion) (run security sync init-server)")
        }
    }
}
