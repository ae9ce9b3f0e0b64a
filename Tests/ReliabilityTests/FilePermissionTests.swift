import Foundation
import Security
import Testing

@_spi(Testing) @testable import KeychainCore

/// A keychain whose directory or any of its files is not private to the calling user (owned by
/// another user, or with any group or other permission bit) is refused with errSecWrPerm by the
/// engine, by SecItem calls and by the `security` command, which names the file and the fix;
/// nothing is changed, and the printed fix makes the keychain usable again
/// (docs/reliability.md §5).
@Suite("File permissions")
struct FilePermissionTests {
    /// errSecWrPerm.
    static let writePermission: Int32 = -61

    @Test(
        "a keychain with a file or directory not private to the caller is refused by the engine, SecItem and security, unchanged",
        arguments: KeychainPart.allCases, Exposure.allCases)
    func refusedUntilPrivate(part: KeychainPart, exposure: Exposure) throws {
        let directory = try TemporaryDirectory("perm-refuse")
        let keychain = try PermissionFixture(in: directory)
        let target = keychain.path(of: part)
        if part.isPlanted { try keychain.plant(target) }
        try exposure.apply(to: target, isDirectory: part == .directory)
        let before = try keychain.state()

        // The engine.
        do {
            _ = try Keychain.open(path: keychain.database, create: false)
            Issue.record("the engine opened the keychain")
        } catch let error as KeychainError {
            #expect(StatusMapping.status(for: error) == Self.writePermission, "\(error)")
            #expect(error.reason.contains(part.roleWord), "\(error.reason)")
            #expect(error.reason.contains(exposure.fixWord), "\(error.reason)")
            #expect(!error.reason.contains(directory.path), "the engine's reason names no path: \(error.reason)")
        }
        // SecItem calls from a client process.
        let probe = try keychain.probe()
        #expect(probe == "find: -61 -\nadd: -61\nupdate: -61\ndelete: -61\n")
        // The security command.
        let find = try keychain.security(["find-generic-password", "-a", "me", "-s", "svc", "-w"])
        let fix = exposure.fixCommand(for: target, isDirectory: part == .directory)
        #expect(find.exitCode == 195, "exit \(find.exitCode): \(find.error)")
        #expect(find.error.contains("Write permissions error."), "\(find.error)")
        #expect(find.error.contains("security: \(target): "), "\(find.error)")
        #expect(find.error.contains("security: to fix: \(exposure.fixLine(for: target, isDirectory: part == .directory))\n"), "\(find.error)")
        #expect(!find.output.contains(PermissionFixture.secret) && !find.error.contains(PermissionFixture.secret))
        #expect(try keychain.state() == before, "a refused keychain was changed")

        // The fix the command printed makes it usable again.
        let fixing = try ChildProcess("/bin/sh", ["-c", fix], in: directory.path)
        fixing.wait()
        try #require(fixing.exitCode == 0, "\(fix): \(fixing.error)")
        #expect(try keychain.probe() == "find: 0 \(PermissionFixture.secret)\nadd: 0\nupdate: 0\ndelete: 0\n")
        let found = try keychain.security(["find-generic-password", "-a", "me", "-s", "svc", "-w"])
        #expect(found.exitCode == 0 && found.output == PermissionFixture.secret + "\n", "\(found.error)")
        // In daemon mode the daemon now holds the keychain: it ends, as a client process does.
        keychain.daemon.stop()
        #expect(try Keychain.open(path: keychain.database, create: false).path == keychain.database)
        Keychain.forgetOpenInstance(path: keychain.database)
    }

    @Test("a keybag opened to others while the keychain is open is refused when it is to be replaced, and stays as it was")
    func keybagBeingReplacedIsChecked() throws {
        let directory = try TemporaryDirectory("perm-replace")
        let database = directory.file("keychains") + "/k.keychain-db"
        let keychain = try Keychain.open(path: database)
        defer { Keychain.forgetOpenInstance(path: database) }
        let keybag = database + ".keybag"
        try #require(chmod(keybag, 0o644) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: keybag))
        do {
            try keychain.setAutoLock(interval: 60)
            Issue.record("the keybag was replaced")
        } catch let error as KeychainError {
            #expect(StatusMapping.status(for: error) == Self.writePermission && error.reason.contains("keybag"), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: keybag)) == before)
        var info = stat()
        #expect(stat(keybag, &info) == 0 && info.st_mode & 0o777 == 0o644, "the refused keybag was left as it was")
        try #require(chmod(keybag, 0o600) == 0)
        try keychain.setAutoLock(interval: 60)
    }

    @Test("a keychain in a shared directory like /tmp is refused with the advice to give it a directory of its own, not to close the shared one")
    func sharedDirectoryIsNotToBeClosed() throws {
        let directory = try TemporaryDirectory("perm-shared")
        let shared = directory.file("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        try #require(chmod(shared, 0o1777) == 0)
        let create = try Executables.runSecurity(
            ["create-keychain", "-p", "pw", shared + "/k.keychain-db"], home: directory.file("home"), in: directory.path)
        #expect(create.exitCode == 195, "\(create.error)")
        #expect(create.error.contains("security: \(shared): the keychain directory is accessible to group or others (mode 1777)\n"), "\(create.error)")
        #expect(create.error.contains("security: to fix: keep the keychain in a directory of its own (mkdir -m 700 '\(shared)/keychains')\n"))
        #expect(!create.error.contains("chmod"), "\(create.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared).isEmpty, "nothing was created")
    }

    @Test(
        "a keychain file replaced by a symbolic link is refused, not followed",
        arguments: [KeychainPart.database, .keybag, .deviceKey, .preferences])
    func symbolicLinkIsRefused(part: KeychainPart) throws {
        let directory = try TemporaryDirectory("perm-link")
        let keychain = try PermissionFixture(in: directory)
        let target = keychain.path(of: part)
        // The link leads to a private copy of the file itself, so only the link is wrong.
        let elsewhere = directory.file("elsewhere")
        try FileManager.default.moveItem(atPath: target, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: elsewhere)

        do {
            _ = try Keychain.open(path: keychain.database, create: false)
            Issue.record("the engine followed the link")
        } catch let error as KeychainError {
            #expect(StatusMapping.status(for: error) == Self.writePermission && error.reason.contains("symbolic link"), "\(error)")
        }
        #expect(try keychain.probe() == "find: -61 -\nadd: -61\nupdate: -61\ndelete: -61\n")
        let find = try keychain.security(["find-generic-password", "-a", "me", "-s", "svc", "-w"])
        #expect(find.exitCode == 195 && find.error.contains("security: \(target): ") && find.error.contains("symbolic link"), "\(find.error)")
        #expect(!find.output.contains(PermissionFixture.secret))
    }

    @Test(
        "a write-ahead log or shared-memory index opened to others while the keychain is in use is refused when a connection opens",
        arguments: [KeychainPart.writeAheadLog, .sharedMemory])
    func checkedWhenConnectionOpens(part: KeychainPart) throws {
        let directory = try TemporaryDirectory("perm-connection")
        let database = directory.file("keychains") + "/k.keychain-db"
        let keychain = try Keychain.open(path: database)
        defer { Keychain.forgetOpenInstance(path: database) }
        let file = database + (part == .writeAheadLog ? "-wal" : "-shm")
        try keychain.store.withConnection { _ in
            // This connection keeps SQLite's files in existence; a second one opens now.
            try #require(FileSystem.exists(file))
            chmod(file, 0o644)
            do {
                try keychain.store.withConnection { _ in }
                Issue.record("a connection opened with a \(part) open to others")
            } catch let error as KeychainError {
                #expect(StatusMapping.status(for: error) == Self.writePermission && error.reason.contains(part.roleWord), "\(error)")
            }
            chmod(file, 0o600)
            try keychain.store.withConnection { _ in }
        }
    }
}

/// A part of a keychain a case makes unsafe.
enum KeychainPart: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case directory, database, writeAheadLog, sharedMemory, keybag, deviceKey, preferences, legacyKey

    var testDescription: String { rawValue }

    /// Whether the case may have to plant the file (SQLite's files need not exist when no
    /// process has the keychain open; a version-1 key file exists only before an upgrade).
    var isPlanted: Bool { [.writeAheadLog, .sharedMemory, .legacyKey].contains(self) }

    /// A word of the role the engine's reason must name.
    var roleWord: String {
        switch self {
        case .directory: return "keychain directory"
        case .database: return "keychain database"
        case .writeAheadLog: return "write-ahead log"
        case .sharedMemory: return "shared-memory index"
        case .keybag: return "keybag"
        case .deviceKey: return "device key"
        case .preferences: return "preferences"
        case .legacyKey: return "version-1 key file"
        }
    }
}

/// How a case makes a file or directory unsafe.
enum Exposure: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case groupReadable, worldReadable, groupWritable, worldWritable, ownedByAnotherUser

    var testDescription: String { rawValue }

    /// The uid that owns a file of another user.
    static let otherUser: uid_t = 65534

    func apply(to path: String, isDirectory: Bool) throws {
        let base: mode_t = isDirectory ? 0o700 : 0o600
        let result: Int32
        switch self {
        case .groupReadable: result = chmod(path, base | S_IRGRP)
        case .worldReadable: result = chmod(path, base | S_IROTH)
        case .groupWritable: result = chmod(path, base | S_IWGRP)
        case .worldWritable: result = chmod(path, base | S_IWOTH)
        case .ownedByAnotherUser: result = chown(path, Self.otherUser, Self.otherUser)
        }
        try #require(result == 0, "could not make \(path) \(self) (errno \(errno))")
    }

    /// A word the fix in the engine's reason must contain.
    var fixWord: String { self == .ownedByAnotherUser ? "chown" : "chmod" }

    /// The advice the `security` command must print as the fix: the command, with what to do
    /// instead when the directory may hold more than keychains.
    func fixLine(for path: String, isDirectory: Bool) -> String {
        let command = fixCommand(for: path, isDirectory: isDirectory)
        if self == .ownedByAnotherUser { return "use a keychain directory of your own, or if this one should be yours: " + command }
        guard isDirectory else { return command }
        return command + " if only keychains are kept there; otherwise keep the keychain in a directory of its own (mkdir -m 700 '\(path)/keychains')"
    }

    /// The command the `security` command must print as the fix (this test's root runs it).
    func fixCommand(for path: String, isDirectory: Bool) -> String {
        switch self {
        case .ownedByAnotherUser: return "chown\(isDirectory ? " -R" : "") \(geteuid()) '\(path)'"
        default: return "chmod \(isDirectory ? "700" : "600") '\(path)'"
        }
    }
}

/// A default keychain (`$XDG_DATA_HOME/swift-keychain/login.keychain-db`) made by the `security`
/// command with one password and the preferences file, for the probes to open afresh.
struct PermissionFixture {
    /// The stored password.
    static let secret = "perm-Secret-7713"

    let base: TemporaryDirectory
    let home: String
    /// In daemon mode, the daemon the fixture's processes use (stopped once the keychain is made,
    /// as the process that made it ends in embedded mode).
    let daemon = PrivateDaemon()
    var keychainDirectory: String { home + "/swift-keychain" }
    var database: String { keychainDirectory + "/login.keychain-db" }

    init(in base: TemporaryDirectory) throws {
        self.base = base
        home = base.file("home")
        let added = try security(["add-generic-password", "-a", "me", "-s", "svc", "-w", Self.secret])
        try #require(added.exitCode == 0, "\(added.error)")
        let preferences = try security(["default-keychain", "-s"])
        try #require(preferences.exitCode == 0, "\(preferences.error)")
        try #require(FileSystem.exists(path(of: .preferences)))
        daemon.stop()
    }

    func path(of part: KeychainPart) -> String {
        switch part {
        case .directory: return keychainDirectory
        case .database: return database
        case .writeAheadLog: return database + "-wal"
        case .sharedMemory: return database + "-shm"
        case .keybag: return database + ".keybag"
        case .deviceKey: return keychainDirectory + "/device.key"
        case .preferences: return keychainDirectory + "/preferences.plist"
        case .legacyKey: return database + ".key"
        }
    }

    /// Makes sure `path` exists as a private file of the calling user: SQLite's files as the
    /// last process left them, else planted empty; a version-1 key file planted with random bytes.
    func plant(_ path: String) throws {
        if FileSystem.exists(path) { return }
        let contents = path.hasSuffix(".key") ? Data((0..<50).map { _ in UInt8.random(in: 0...255) }) : Data()
        try #require(FileManager.default.createFile(atPath: path, contents: contents))
        try #require(chmod(path, 0o600) == 0)
    }

    /// Every entry of the keychain directory (and the directory): contents, mode and owner.
    func state() throws -> [String: String] {
        var state: [String: String] = [:]
        for name in ["."] + (try FileManager.default.contentsOfDirectory(atPath: keychainDirectory)) {
            let path = keychainDirectory + "/" + name
            var info = stat()
            try #require(lstat(path, &info) == 0)
            let contents = name == "." ? Data() : (FileManager.default.contents(atPath: path) ?? Data())
            state[name] = "\(String(info.st_mode, radix: 8)) \(info.st_uid) \(contents.base64EncodedString())"
        }
        return state
    }

    /// The `security` command run with this keychain as the default.
    func security(_ arguments: [String]) throws -> ChildProcess {
        try Executables.runSecurity(arguments, home: home, environment: daemon.environment, in: base.path)
    }

    /// The SecItem probe's output (`permission-probe`).
    func probe() throws -> String {
        let run = try Executables.runHelper(["permission-probe", "--home", home], environment: daemon.environment, in: base.path)
        #expect(run.error.isEmpty, "\(run.error)")
        return run.output
    }
}
