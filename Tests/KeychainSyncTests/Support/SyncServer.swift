import Foundation

@testable import KeychainSync

/// A PostgreSQL server with the sync schema and an account role, `alice` (not a superuser, so
/// row-level security applies), and direct access as the superuser for the hostile-server tests.
final class SyncServer: @unchecked Sendable {
    let postgres: PostgresServer
    /// The superuser's connection (it sees and changes every row).
    let admin: PostgresConnection

    init() throws {
        postgres = try PostgresServer()
        admin = try PostgresConnection(postgres.conninfo())
        try admin.execute("CREATE ROLE alice LOGIN")
        try admin.execute("CREATE ROLE bob LOGIN")
        _ = try SyncSchema.install(on: admin)
    }

    /// The account role's connection string.
    func conninfo(_ role: String = "alice") -> String { postgres.conninfo(user: role) }

    func stop() { postgres.stop() }

    /// Enables sync on `first` and joins each of `others` with the recovery secret.
    func enroll(_ first: SyncDevice, _ others: SyncDevice...) throws {
        let enable = try first.run("sync", "enable", "--server", conninfo())
        guard enable.status == 0, let secret = enable.output.split(separator: "\n").last else {
            throw PostgresServer.Failure(what: "enable failed: \(enable.error)")
        }
        let file = first.home + "/recovery-secret"
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: file))
        for device in others {
            let join = try device.run("sync", "join", "--server", conninfo(), "--recovery-secret-file", file)
            guard join.status == 0 else { throw PostgresServer.Failure(what: "join failed: \(join.error)") }
        }
    }
}
