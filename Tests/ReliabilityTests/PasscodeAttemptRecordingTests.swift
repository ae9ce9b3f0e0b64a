#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

@testable import KeychainCore

/// A passcode attempt is recorded before it is evaluated: when the record cannot be written
/// (a read-only directory, a full disk) no guess is evaluated, right or wrong, so the keychain
/// is never an unrecorded guessing oracle (docs/reliability.md §6).
@Suite("Passcode attempts are recorded before they are evaluated")
struct PasscodeAttemptRecordingTests {
    static let options = KeychainOptions(passcodeIterations: 1_000, backupWorkFactor: 10)
    static let right = Data("right-passcode".utf8)
    static let wrong = Data("wrong-passcode".utf8)

    @Test(
        "in a read-only directory neither a wrong nor the right passcode is evaluated (errSecWrPerm), and nothing changes",
        .enabled(if: SmallFilesystem.canMount, "mounting needs CAP_SYS_ADMIN"))
    func readOnlyDirectory() throws {
        let directory = try TemporaryDirectory("attempts-read-only")
        let mount = try SmallFilesystem(at: directory.file("mnt"), bytes: 8 << 20)
        defer { mount.unmount() }
        try checkAttempts(in: mount.path + "/keychains", expecting: .writePermission) { keychainDirectory in
            try ReadOnlyView(of: keychainDirectory)
        }
    }

    @Test(
        "on a full disk neither a wrong nor the right passcode is evaluated (errSecDiskFull), and nothing changes",
        .enabled(if: SmallFilesystem.canMount, "mounting needs CAP_SYS_ADMIN"))
    func fullDisk() throws {
        let directory = try TemporaryDirectory("attempts-full")
        let mount = try SmallFilesystem(at: directory.file("mnt"), bytes: 2 << 20)
        defer { mount.unmount() }
        try checkAttempts(in: mount.path + "/keychains", expecting: .diskFull) { _ in
            try DiskFiller(filling: mount.path + "/filler")
        }
    }

    /// Creates a keychain with a passcode in `keychainDirectory`, opens it as a new process
    /// would (before its first unlock), and tries a wrong and the right passcode while
    /// `obstruct` is in force: both must fail with `expected`, leaving the keybag as it was.
    /// Once the obstruction is gone, the right passcode unlocks and no failure was counted.
    private func checkAttempts(
        in keychainDirectory: String, expecting expected: KeychainError.Code, obstruct: (String) throws -> AnyObject
    ) throws {
        let path = keychainDirectory + "/test.keychain-db"
        let creator = try step("create the keychain", path) { try Keychain.create(path: path, passcode: Self.right, options: Self.options) }
        var add = ItemRequest(itemClass: .genericPassword)
        add.attributes = ["svce": .string("svc"), "acct": .string("me")]
        add.secret = Data("the secret".utf8)
        _ = try step("add an item", path) { try creator.add(add, context: AccessContext(accessGroups: ["test"])) }
        let keybagPath = KeychainLocation.keybagPath(forDatabase: path)
        let keybagBefore = try #require(FileManager.default.contents(atPath: keybagPath))

        let process = try step("open it as another process", path) { try Keychain.openSeparately(path: path, options: Self.options) }
        #expect(process.lockState == .beforeFirstUnlock)
        do {
            let obstruction = try obstruct(keychainDirectory)
            for (name, passcode) in [("wrong", Self.wrong), ("right", Self.right), ("wrong again", Self.wrong)] {
                #expect(code { try process.unlock(passcode: passcode) } == expected, "the \(name) passcode")
                #expect(process.lockState == .beforeFirstUnlock, "the \(name) passcode")
            }
            #expect(code { try process.changePasscode(from: Self.right, to: Data("new".utf8)) } == expected)
            withExtendedLifetime(obstruction) {}
        }
        #expect(FileManager.default.contents(atPath: keybagPath) == keybagBefore, "the keybag changed")

        try step("unlock once the obstruction is gone", path) { try process.unlock(passcode: Self.right) }
        #expect(try process.passcodeRetryDelay == nil)
        var search = ItemRequest(itemClass: .genericPassword)
        search.attributes = ["svce": .string("svc"), "acct": .string("me")]
        search.returns = [.data]
        #expect(try process.search(search, context: AccessContext(accessGroups: ["test"])).first?.data == Data("the secret".utf8))
        // The attempts made while they could not be recorded were not counted either: four
        // wrong ones now bring no delay, the fifth does.
        for attempt in 1...5 {
            #expect(code { try process.unlock(passcode: Data("wrong-\(attempt)".utf8)) } == .authFailed)
            #expect((try process.passcodeRetryDelay != nil) == (attempt == 5), "after \(attempt) failures")
        }
    }

    /// Runs `body`, a step that must succeed; when it throws, the issue names the step and the
    /// free space left on the keychain's file system before the error is rethrown.
    private func step<T>(_ name: String, _ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            var stats = statvfs()
            let free = statvfs((path as NSString).deletingLastPathComponent, &stats) == 0 ? "\(UInt64(stats.f_bavail) * UInt64(stats.f_frsize)) bytes free" : "free space unknown"
            Issue.record("\(name) failed (\(free)): \(error)")
            throw error
        }
    }

    private func code(_ body: () throws -> Void) -> KeychainError.Code? {
        do {
            try body()
            return nil
        } catch let error as KeychainError {
            return error.code
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }
}

/// A directory made read-only for as long as this lives: a read-only bind mount over it (root
/// ignores mode bits, so a read-only mount is the way to refuse it writes). Files already open
/// stay writable, as they would for a process that opened them before.
final class ReadOnlyView {
    let path: String

    init(of path: String) throws {
        self.path = path
        guard Glibc.mount(path, path, nil, UInt(MS_BIND), nil) == 0 else {
            throw ChildProcessError("bind mount failed (errno \(errno))")
        }
        guard Glibc.mount(nil, path, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) == 0 else {
            umount2(path, Int32(MNT_DETACH))
            throw ChildProcessError("read-only remount failed (errno \(errno))")
        }
        // The mount refuses writes.
        let probe = path + "/probe"
        if open(probe, O_WRONLY | O_CREAT, 0o600) >= 0 || errno != EROFS {
            unlink(probe)
            umount2(path, Int32(MNT_DETACH))
            throw ChildProcessError("the read-only view accepted a write")
        }
    }

    deinit { umount2(path, Int32(MNT_DETACH)) }
}

/// A file that takes every free block of its filesystem for as long as this lives.
final class DiskFiller {
    let path: String

    init(filling path: String) throws {
        self.path = path
        // Close-on-exec: a child another test starts meanwhile must not inherit the filler and
        // keep its blocks allocated after it is unlinked (the disk would stay full).
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ChildProcessError("cannot create the filler (errno \(errno))") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x5a, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else { throw ChildProcessError("the filler stopped with errno \(errno)") }
        // The disk is full: even a one-byte file cannot be written.
        let probe = (path as NSString).deletingLastPathComponent + "/probe"
        let small = open(probe, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { if small >= 0 { close(small); unlink(probe) } }
        if small >= 0, write(small, "x", 1) == 1, fsync(small) == 0 {
            throw ChildProcessError("the disk accepted a write after filling")
        }
    }

    deinit { unlink(path) }
}
