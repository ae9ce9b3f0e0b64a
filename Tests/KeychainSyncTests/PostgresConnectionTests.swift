import Foundation
import Testing

@testable import KeychainSync

/// The libpq wrapper against a real server.
@Suite("PostgreSQL connection")
struct PostgresConnectionTests {
    @Test("bytes travel as binary parameters and come back unchanged, NUL and high bytes included")
    func binaryParameters() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let connection = try PostgresConnection(server.conninfo())
        #expect(connection.serverVersion >= 150000)
        let bytes = Data([0x00, 0xFF, 0x10, 0x80, 0x27, 0x5C])
        let rows = try connection.execute("SELECT length($1::bytea) AS n, $1::bytea AS b, $2::text AS t", [.bytes(bytes), .text("it's")])
        #expect(try rows.integer(0, "n") == 6)
        #expect(try rows.bytes(0, "b") == bytes)
        #expect(try rows.string(0, "t") == "it's")
    }

    @Test("a transaction whose body throws leaves nothing behind")
    func rollback() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let connection = try PostgresConnection(server.conninfo())
        try connection.execute("CREATE TABLE t (k bigint PRIMARY KEY)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES ($1)", [.integer(1)])
                throw Stop()
            }
        }
        #expect(try connection.execute("SELECT count(*) AS n FROM t").integer(0, "n") == 0)
        try connection.transaction { try connection.execute("INSERT INTO t VALUES ($1)", [.integer(2)]) }
        #expect(try connection.execute("SELECT count(*) AS n FROM t").integer(0, "n") == 1)
    }

    @Test("a refused statement is a serverFailed error with its SQLSTATE and without the row's values")
    func refusedStatement() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let connection = try PostgresConnection(server.conninfo())
        try connection.execute("CREATE TABLE t (k text PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES ($1)", [.text("hunter2-value")])
        do {
            try connection.execute("INSERT INTO t VALUES ($1)", [.text("hunter2-value")])
            Issue.record("a duplicate key was accepted")
        } catch let error as SyncError {
            #expect(error.code == .serverFailed)
            #expect(error.sqlState == "23505")
            #expect(!error.message.contains("hunter2"))
        }
    }

    @Test("a server that is not there is serverUnreachable, and the message does not repeat the password")
    func unreachable() throws {
        let server = try PostgresServer()
        let conninfo = server.conninfo() + " password=sekrit-pass"
        server.stop()
        do {
            _ = try PostgresConnection(conninfo)
            Issue.record("connected to a stopped server")
        } catch let error as SyncError {
            #expect(error.code == .serverUnreachable)
            #expect(!error.message.contains("sekrit-pass"))
        }
    }

    @Test("a malformed connection string is badInput, and the message quotes none of it")
    func malformedConninfo() throws {
        do {
            _ = try PostgresConnection("host=127.0.0.1 password=sekrit-pass trailing-word")
            Issue.record("a malformed connection string was accepted")
        } catch let error as SyncError {
            #expect(error.code == .badInput)
            #expect(!error.message.contains("sekrit") && !error.message.contains("trailing-word"))
        }
    }
}
