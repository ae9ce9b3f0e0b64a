import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore

/// A process that ends normally leaves every write in the database file (docs/reliability.md §6).
/// Through the daemon the process that holds the files is `keychaind`: each command is followed
/// by the daemon's normal end (SIGTERM, as `systemctl stop` or a restart sends it), and the files
/// must then hold every item.
@Suite("The database file after a process ends")
struct WriteAheadLogProcessTests {
    @Test("after each security command ends, the -wal file is empty and the three files README names hold every item")
    func commandsLeaveEverythingInTheDatabaseFile() throws {
        let directory = try TemporaryDirectory("wal-exit")
        let home = directory.file("home")
        let keychains = home + "/swift-keychain"
        let daemon = PrivateDaemon()
        for index in 0..<3 {
            let add = try Executables.runSecurity(
                ["add-generic-password", "-a", "me", "-s", "svc-\(index)", "-w", "secret-\(index)"], home: home,
                environment: daemon.environment, in: directory.path)
            #expect(add.exitCode == 0, "\(add.error)")
            daemon.stop()
            let log = try? FileManager.default.attributesOfItem(atPath: keychains + "/login.keychain-db-wal")[.size] as? Int
            #expect(log == nil || log == 0, "the -wal file holds \(log ?? 0) bytes after the process ended")
        }
        let copy = directory.file("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in ["login.keychain-db", "login.keychain-db.keybag", "device.key"] {
            try FileManager.default.copyItem(atPath: keychains + "/" + name, toPath: copy + "/" + name)
        }
        let keychain = try Keychain.open(path: copy + "/login.keychain-db", create: false)
        defer { Keychain.forgetOpenInstance(path: keychain.path) }
        var search = ItemRequest(itemClass: .genericPassword)
        search.matchLimit = .all
        search.returns = [.data]
        let secrets = try keychain.search(search, context: AccessContext(accessGroups: ["*"])).map { String(decoding: $0.data ?? Data(), as: UTF8.self) }
        #expect(secrets.sorted() == ["secret-0", "secret-1", "secret-2"])
    }
}
