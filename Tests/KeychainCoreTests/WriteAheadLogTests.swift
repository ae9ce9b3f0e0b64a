import Foundation
import Testing

@_spi(Testing) @testable import KeychainCore
import KeychainSQLite

/// What the write-ahead log keeps, and when the database file has it all.
@Suite("The write-ahead log keeps no deleted or replaced secret")
struct WriteAheadLogTests {
    /// The sealed parts of the row holding service `service` (metadata, secret), read directly.
    static func sealedParts(_ temporary: TemporaryKeychain, service: String) throws -> [Data] {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes = ["svce": .string(service), "acct": .string("me")]
        request.returns = [.persistentReference]
        let reference = try #require(try temporary.keychain.search(request, context: TemporaryKeychain.context).first?.persistentReference)
        let uuid = reference.suffix(16)
        let connection = try SQLiteConnection(path: temporary.keychain.path)
        let parts = try connection.statement("SELECT metadata, secret FROM items WHERE uuid = ?").bind([.blob(uuid)])
            .rows { [$0.blob(0) ?? Data(), $0.blob(1) ?? Data()] }.first ?? []
        try #require(parts.count == 2 && parts.allSatisfy { $0.count > 40 })
        return parts
    }

    /// The files of the keychain (database, log, index) holding any 24-byte piece of `blobs`.
    static func filesHolding(_ blobs: [Data], in temporary: TemporaryKeychain) throws -> [String] {
        let pieces = blobs.flatMap { blob in
            stride(from: 0, to: blob.count - 24, by: 24).map { blob[(blob.startIndex + $0)..<(blob.startIndex + $0 + 24)] }
        }
        return try temporary.files().filter { file in
            file.name.hasPrefix("test.keychain-db") && pieces.contains { file.contents.range(of: $0) != nil }
        }.map(\.name)
    }

    /// The files holding any piece of `blobs` once the scheduled checkpoint has run: polled
    /// until none does, for at most 10 s (the checkpoint runs within
    /// `KeychainStore.checkpointDelay`; the bound only keeps a broken build from hanging).
    static func filesHoldingAfterCheckpoint(_ blobs: [Data], in temporary: TemporaryKeychain) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let holding = try filesHolding(blobs, in: temporary)
            if holding.isEmpty || Date() > deadline { return holding }
            usleep(10_000)
        }
    }

    @Test("after a delete returns, the item's ciphertext leaves every file of the keychain within the checkpoint delay")
    func deletedCiphertextIsGone() throws {
        let temporary = try TemporaryKeychain()
        for index in 0..<20 { try temporary.addPassword(service: "other-\(index)", account: "me", secret: "other secret \(index)") }
        try temporary.addPassword(service: "doomed", account: "me", secret: "doomed secret")
        try temporary.keychain.relabel(service: "doomed", account: "me", to: "an earlier version")
        let parts = try Self.sealedParts(temporary, service: "doomed")
        #expect(try !Self.filesHolding(parts, in: temporary).isEmpty, "the control: the ciphertext is on disk while the item exists")

        #expect(try temporary.keychain.deletePasswords(service: "doomed", account: "me") == 1)
        #expect(try Self.filesHoldingAfterCheckpoint(parts, in: temporary) == [])
        #expect(try temporary.secret(service: "other-7", account: "me") == Data("other secret 7".utf8))
    }

    @Test("after an update returns, the item's previous ciphertexts leave every file of the keychain within the checkpoint delay")
    func replacedCiphertextIsGone() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "changing", account: "me", secret: "first secret")
        let first = try Self.sealedParts(temporary, service: "changing")
        try temporary.keychain.relabel(service: "changing", account: "me", to: "relabelled")
        let second = try Self.sealedParts(temporary, service: "changing")
        #expect(try Self.filesHoldingAfterCheckpoint(first, in: temporary) == [])

        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes = ["svce": .string("changing"), "acct": .string("me")]
        var changes = ItemChanges()
        changes.secret = Data("second secret".utf8)
        try temporary.keychain.update(request, changes: changes, context: TemporaryKeychain.context)
        #expect(try Self.filesHoldingAfterCheckpoint(first + second, in: temporary) == [])
        #expect(try temporary.secret(service: "changing", account: "me") == Data("second secret".utf8))
    }

    @Test("at a normal exit every write is in the database file: a copy without the -wal and -shm files holds them")
    func databaseFileHoldsEveryWriteAtExit() throws {
        let temporary = try TemporaryKeychain()
        // Adds alone schedule no checkpoint, and these are too few pages for an automatic one:
        // until the exit handler runs, they are in the log only.
        for index in 0..<8 { try temporary.addPassword(service: "svc-\(index)", account: "me", secret: "secret \(index)") }
        try temporary.addPassword(service: "last", account: "me", secret: "added last")
        #expect(!temporary.keychain.store.isCheckpointPending)
        temporary.keychain.store.checkpointAtExit()  // what the process's exit handler runs for it

        let copy = TemporaryKeychain.newDirectory()
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in ["test.keychain-db", "test.keychain-db.keybag", "device.key"] {
            try FileManager.default.copyItem(atPath: temporary.directory + "/" + name, toPath: copy + "/" + name)
        }
        let copied = try Keychain.open(path: copy + "/test.keychain-db", create: false, options: TemporaryKeychain.options)
        #expect(try copied.secret(service: "last", account: "me") == Data("added last".utf8))
        #expect(try copied.allSecrets().count == 9)
    }

    @Test("a keybag beside a database that holds nothing is reported as a damaged keychain, not opened as a new one")
    func keybagWithoutDatabaseIsDamage() throws {
        let temporary = try TemporaryKeychain()
        try temporary.addPassword(service: "svc", account: "me", secret: "kept")
        let path = temporary.keychain.path
        Keychain.forgetOpenInstance(path: path)
        // A database file that never received its pages (a copy taken without its -wal file).
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600]))
        let error = #expect(throws: KeychainError.self) {
            _ = try Keychain.open(path: path, create: false, options: TemporaryKeychain.options)
        }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("damaged") == true)
        // Nothing was written to it: the damaged file stays as it was found.
        #expect(FileSystem.size(of: path) == 0 && !FileManager.default.fileExists(atPath: path + "-wal"))
        // The same when the database file is missing altogether and creation is allowed.
        try FileManager.default.removeItem(atPath: path)
        #expect(status { _ = try Keychain.open(path: path, options: TemporaryKeychain.options) } == .invalidKeychain)
        #expect(!FileManager.default.fileExists(atPath: path) || (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0)
    }
}
