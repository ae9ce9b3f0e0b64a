import Foundation
import KeychainCore
import Testing

@testable import KeychainService
@testable import KeychainSync

/// `security sync now` and `sync status` on a keychain keychaind serves, in either
/// `KEYCHAIN_MODE` (each device has a keychaind of its own): the daemon runs them on its own
/// keychain (`DaemonSync`), only for a caller entitled to the sync state's access group, with
/// the output an exchange in the `security` process prints.
@Suite("Sync run by keychaind", .serialized)
struct DaemonSyncTests {
    /// The sync state of the keychain at `path`, read in this process once its daemon has exited.
    private static func state(at path: String) throws -> SyncState {
        defer { Keychain.dropOpenInstance(path: path) }
        let keychain = EmbeddedKeychain(try Keychain.open(path: path, create: false), context: AccessContext(accessGroups: ["*"]))
        return try #require(try SyncState.load(from: keychain))
    }

    /// How many synchronizable items the state's row versions know (nil: the state has none).
    private static func itemsWithVersions(_ state: SyncState) -> Int? {
        state.localVersions.map { $0.entries.values.filter { $0.item != nil }.count }
    }

    @Test("sync now and sync status run inside keychaind: the exchange keeps the rows' versions, which only an exchange on the daemon's own keychain can")
    func exchangeRunsInTheDaemon() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let (a, b) = (try SyncDevice(daemon: true), try SyncDevice(daemon: true))
        defer { [a, b].forEach { $0.stop() } }
        try server.enroll(a, b)
        for index in 0..<3 {
            #expect(try a.run("add-generic-password", "-S", "-a", "me \(index)", "-s", "mail", "-w", "secret \(index)").status == 0)
        }
        #expect(try a.run("add-generic-password", "-a", "me", "-s", "local-only", "-w", "stays-here").status == 0)

        let upload = try a.run("sync", "now")
        #expect(upload.status == 0)
        #expect(upload.output == "uploaded 3 changes and 0 deletions; applied 0 changes and 0 deletions\n")
        let download = try b.run("sync", "now")
        #expect(download.status == 0)
        #expect(download.output == "uploaded 0 changes and 0 deletions; applied 3 changes and 0 deletions\n")
        #expect(try b.password("me 1", "mail") == "secret 1")
        #expect(try b.password("me", "local-only") == nil)
        let status = try b.run("sync", "status")
        #expect(status.status == 0)
        #expect(status.output.contains("devices: 2\n"))
        #expect(status.output.contains("pending changes: 0\n"))
        #expect(!status.output.contains("last sync: never"))

        // The `security` process reaches the keychain only through the item protocol, which
        // carries no row versions: an exchange run there leaves none in the sync state.
        for device in [a, b] { device.stopDaemon() }
        #expect(Self.itemsWithVersions(try Self.state(at: a.keychainPath)) == 3)
        #expect(Self.itemsWithVersions(try Self.state(at: b.keychainPath)) == 3)
    }

    /// How many items the first device of a first sync uploads.
    private static let count = 2 * SyncEngine.additionBatch + SyncEngine.additionBatch / 2

    /// Enables sync on a keychain in this process (in `directory`) holding `count` synchronizable
    /// items (added in one transaction), uploads them, and writes the recovery secret to a file.
    ///
    /// - Returns: the recovery secret's file.
    private static func uploadFirstDevice(_ server: SyncServer, in directory: String) throws -> String {
        let first = EmbeddedKeychain(
            try Keychain.create(path: "\(directory)/first.keychain-db", passcode: nil), context: AccessContext(accessGroups: ["test", "*"]))
        defer { Keychain.dropOpenInstance(path: first.path) }
        let secret = try SyncEngine.enable(first, conninfo: server.conninfo())
        _ = try first.keychain.add(contentsOf: (0..<count).map { index in
            var request = ItemRequest(itemClass: .genericPassword)
            request.attributes[.service] = .string("progress")
            request.attributes[.account] = .string("account \(index)")
            request.synchronizable = .only(true)
            request.secret = Data("secret \(index)".utf8)
            return request
        }, context: first.context)
        #expect(try SyncEngine.syncNow(first).uploaded == count)
        let file = directory + "/recovery-secret"
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// A temporary directory, removed by `remove`.
    private static func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kssync-daemon-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory
    }

    @Test("a first sync run by keychaind prints its progress batch by batch, as in-process, and adds every item")
    func firstSyncProgressThroughTheDaemon() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try Self.uploadFirstDevice(server, in: directory)
        let count = Self.count

        let second = try SyncDevice(daemon: true)
        defer { second.stop() }
        #expect(try second.run("sync", "join", "--server", server.conninfo(), "--recovery-secret-file", file).status == 0)
        let run = try second.run("sync", "now")
        #expect(run.status == 0)
        #expect(run.output == """
            applied 1000 of 2500 records
            applied 2000 of 2500 records
            applied 2500 of 2500 records
            uploaded 0 changes and 0 deletions; applied 2500 changes and 0 deletions

            """)
        #expect(try second.password("account 2499", "progress") == "secret 2499")
        second.stopDaemon()
        #expect(Self.itemsWithVersions(try Self.state(at: second.keychainPath)) == count)
    }

    @Test("two sync now at once through one keychaind run one after the other: one applies the first sync, the other finds nothing left")
    func concurrentSyncNowRunOneAtATime() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try Self.uploadFirstDevice(server, in: directory)
        let device = try SyncDevice(daemon: true)
        defer { device.stop() }
        #expect(try device.run("sync", "join", "--server", server.conninfo(), "--recovery-secret-file", file).status == 0)

        let runs = [try device.start("sync", "now"), try device.start("sync", "now")].map { $0.wait() }
        #expect(runs.map(\.status) == [0, 0], "\(runs.map(\.error))")
        let summaries = runs.map { $0.output.split(separator: "\n").last.map(String.init) ?? "" }
        #expect(summaries.sorted() == [
            "uploaded 0 changes and 0 deletions; applied 0 changes and 0 deletions",
            "uploaded 0 changes and 0 deletions; applied \(Self.count) changes and 0 deletions",
        ])
        #expect(try device.password("account 0", "progress") == "secret 0")
        #expect(try device.password("account \(Self.count - 1)", "progress") == "secret \(Self.count - 1)")
    }

    @Test("a sync now as keychaind's background worker starts the first sync runs before or after it, never beside it")
    func syncNowWaitsForTheBackgroundWorker() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try Self.uploadFirstDevice(server, in: directory)
        let device = try SyncDevice(background: true)
        defer { device.stop() }
        // The join writes the sync state through the daemon, whose worker starts at once with
        // the first sync of every item; whichever exchange comes second finds nothing to apply.
        #expect(try device.run("sync", "join", "--server", server.conninfo(), "--recovery-secret-file", file).status == 0)
        let run = try device.run("sync", "now")
        #expect(run.status == 0, "\(run.error)")
        let summary = run.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect([0, Self.count].map { "uploaded 0 changes and 0 deletions; applied \($0) changes and 0 deletions" }.contains(summary))
        #expect(try device.password("account \(Self.count - 1)", "progress") == "secret \(Self.count - 1)")
        let status = try device.run("sync", "status")
        #expect(status.output.contains("pending changes: 0\n"))
        #expect(!status.output.contains("last error"))
    }

    @Test("the exchange that ends a join awaiting approval runs inside keychaind: it keeps the rows' versions, and is ordered with the daemon's other exchanges")
    func approvedJoinExchangesInTheDaemon() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.uploadFirstDevice(server, in: directory)
        let first = EmbeddedKeychain(
            try Keychain.open(path: "\(directory)/first.keychain-db"), context: AccessContext(accessGroups: ["test", "*"]))
        defer { Keychain.dropOpenInstance(path: first.path) }
        let device = try SyncDevice(daemon: true)
        defer { device.stop() }

        let join = try device.start("sync", "join", "--server", server.conninfo(), "--timeout", "120")
        let code = try #require(join.line(startingWith: "code: "))
        _ = try SyncEngine.approve(first, code: code)
        let run = join.wait()
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasSuffix("joined; applied \(Self.count) changes\n"))
        #expect(try device.password("account \(Self.count - 1)", "progress") == "secret \(Self.count - 1)")
        // Only an exchange on the daemon's own keychain keeps the rows' versions.
        device.stopDaemon()
        #expect(Self.itemsWithVersions(try Self.state(at: device.keychainPath)) == Self.count)
    }

    @Test("a caller not entitled to the sync state's access group cannot make keychaind sync or read the status")
    func unentitledCallerIsRefused() throws {
        let server = try SyncServer()
        defer { server.stop() }
        let device = try SyncDevice(daemon: true)
        defer { device.stop() }
        try server.enroll(device)
        #expect(try device.run("add-generic-password", "-S", "-a", "me", "-s", "mail", "-w", "secret").status == 0)
        let socket = try #require(device.daemonSocket)

        // This test process is an ordinary program of the user: keychaind gives it the group
        // `default` alone (the `security` command beside the daemon gets every group).
        let keychain = RemoteKeychain(client: ServiceClient(socketPath: socket, startsDaemon: false), path: device.keychainPath)
        do {
            let report = try keychain.syncNow { _, _ in }
            Issue.record("an unentitled caller ran an exchange: it uploaded \(report.uploaded)")
        } catch let error as KeychainError {
            #expect(error.code == .missingEntitlement)
        }
        do {
            let status = try keychain.syncStatus()
            Issue.record("an unentitled caller read the sync status: \(status.pendingChanges) pending")
        } catch let error as KeychainError {
            #expect(error.code == .missingEntitlement)
        }
        // Nothing ran: the change still waits for the owner's exchange.
        let status = try device.run("sync", "status")
        #expect(status.output.contains("pending changes: 1\n"))
        #expect(status.output.contains("last sync: never\n"))
        #expect(try device.run("sync", "now").output == "uploaded 1 changes and 0 deletions; applied 0 changes and 0 deletions\n")
    }
}
