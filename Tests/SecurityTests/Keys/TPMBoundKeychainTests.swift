import Foundation
@_spi(Testing) @testable import KeychainCore
import KeychainHardware
import KeychainSQLite
import KeychainTestSupport
import Testing

/// A keychain directory's device key sealed by a TPM 2.0 (a `swtpm` of each test's own): new
/// keychains are bound to the TPM, keychains with a key in the clear move to it, and a copy of
/// the directory opens on no other machine. The engine is driven directly, in this process, so
/// the TPM the test selects is the one the keychain uses in both test modes.
@Suite("Keychains bound to a TPM 2.0 (swtpm)", .serialized)
struct TPMBoundKeychainTests {
    private static let options = KeychainOptions(passcodeIterations: 1_000, backupWorkFactor: 10)
    private static let context = AccessContext(accessGroups: ["test.group"])
    private static let plainMagic = Data("SKC-DEVICE-KEY-v1\n".utf8)

    /// A keychain path in a directory of the test's own, forgotten by this process afterwards.
    private func withKeychainPath<T>(_ body: (String) throws -> T) throws -> T {
        try TemporaryKeychain.run { environment in
            let path = environment.dataHome.appendingPathComponent("tpm/t.keychain-db").path
            defer { Keychain.forgetOpenInstance(path: path) }
            return try body(path)
        }
    }

    private func directory(of path: String) -> String { (path as NSString).deletingLastPathComponent }

    private func deviceKeyFile(of path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: directory(of: path) + "/device.key"))
    }

    /// Every file of the keychain's directory, by name, with its bytes.
    private func files(of path: String) throws -> [String: Data] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory(of: path))
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: URL(fileURLWithPath: directory(of: path) + "/" + $0))) })
    }

    private func add(_ keychain: Keychain, _ account: String, _ secret: String, protection: Protection? = nil) throws {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string("tpm.test")
        request.attributes["acct"] = .string(account)
        if let protection { request.attributes["pdmn"] = .string(protection.rawValue) }
        request.secret = Data(secret.utf8)
        _ = try keychain.add(request, context: Self.context)
    }

    private func secret(_ keychain: Keychain, _ account: String) throws -> String? {
        var request = ItemRequest(itemClass: .genericPassword)
        request.attributes["svce"] = .string("tpm.test")
        request.attributes["acct"] = .string(account)
        request.returns = [.data]
        return try keychain.search(request, context: Self.context).first?.data.map { String(decoding: $0, as: UTF8.self) }
    }

    private func openStatus(_ path: String) -> KeychainCore.KeychainError.Code? {
        Keychain.forgetOpenInstance(path: path)
        defer { Keychain.forgetOpenInstance(path: path) }
        do {
            _ = try Keychain.open(path: path, create: false, options: Self.options)
            return nil
        } catch let error as KeychainCore.KeychainError {
            return error.code
        } catch {
            return .internal
        }
    }

    @Test("A new keychain's device key is sealed by the TPM: the file holds only the sealed blob, and the keychain opens again after the TPM restarts")
    func newKeychainIsSealed() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: nil, options: Self.options)
                try add(keychain, "a", "sealed secret")
                let key = Data(keychain.deviceKey.bytes.withUnsafeBytes { Data($0) })
                #expect(try Keychain.deviceBinding(ofKeychainAt: path) == .tpm)
                let file = try deviceKeyFile(of: path)
                #expect(!file.starts(with: Self.plainMagic))
                #expect(file.range(of: key) == nil)
                Keychain.forgetOpenInstance(path: path)
                try tpm.restart()
                let reopened = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try secret(reopened, "a") == "sealed secret")
            }
        }
    }

    @Test("A copy of a TPM-bound keychain directory opens with no other TPM (errSecInvalidKeychain) and with no TPM (errSecNotAvailable), passcode or not, and nothing in it changes")
    func copiedDirectoryDoesNotOpenElsewhere() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            let copy = directory(of: path) + "-copy/t.keychain-db"
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: Data("pw".utf8), options: Self.options)
                try add(keychain, "a", "bound secret")
                Keychain.forgetOpenInstance(path: path)
                try FileManager.default.copyItem(atPath: directory(of: path), toPath: directory(of: copy))
            }
            defer { try? FileManager.default.removeItem(atPath: directory(of: copy)) }
            let before = try files(of: copy)
            let otherMachine = try SoftwareTPM()
            otherMachine.selected { #expect(openStatus(copy) == .invalidKeychain) }
            SoftwareTPM.withTCTI("") { #expect(openStatus(copy) == .notAvailable) }
            #expect(try files(of: copy) == before)
            // On its own machine the copy is the keychain: it opens and unlocks.
            try tpm.selected {
                let keychain = try Keychain.open(path: copy, create: false, options: Self.options)
                try keychain.unlock(passcode: Data("pw".utf8))
                #expect(try secret(keychain, "a") == "bound secret")
                Keychain.forgetOpenInstance(path: copy)
            }
        }
    }

    @Test("A keychain whose device key is in a file moves to the TPM when opened with one: same items, the key sealed, its bytes gone from the file")
    func fileKeychainMovesToTheTPM() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            let key: Data = try SoftwareTPM.withTCTI("") {
                let keychain = try Keychain.create(path: path, passcode: Data("pw".utf8), options: Self.options)
                try add(keychain, "d", "always", protection: .alwaysThisDeviceOnly)
                try add(keychain, "a", "when unlocked")
                #expect(try Keychain.deviceBinding(ofKeychainAt: path) == .file)
                Keychain.forgetOpenInstance(path: path)
                return Data(try deviceKeyFile(of: path).suffix(32))
            }
            try tpm.selected {
                let keychain = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try Keychain.deviceBinding(ofKeychainAt: path) == .tpm)
                #expect(try deviceKeyFile(of: path).range(of: key) == nil)
                #expect(try secret(keychain, "d") == "always")
                try keychain.unlock(passcode: Data("pw".utf8))
                #expect(try secret(keychain, "a") == "when unlocked")
            }
            SoftwareTPM.withTCTI("") { #expect(openStatus(path) == .notAvailable) }
            try tpm.selected {
                let keychain = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try secret(keychain, "d") == "always")
            }
        }
    }

    @Test("A configured TPM that does not answer: a new keychain keeps its device key in a file, and moves to the TPM at the first open where it answers")
    func unreachableTPMAtCreationFallsBackToAFile() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            tpm.kill()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: nil, options: Self.options)
                try add(keychain, "a", "kept")
                #expect(try Keychain.deviceBinding(ofKeychainAt: path) == .file)
                Keychain.forgetOpenInstance(path: path)
                try tpm.restart()
                let reopened = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try Keychain.deviceBinding(ofKeychainAt: path) == .tpm)
                #expect(try secret(reopened, "a") == "kept")
            }
        }
    }

    @Test("The TPM going away: a TPM-bound keychain's open is errSecNotAvailable, never a crash, and it opens again when the TPM returns")
    func vanishedTPMGivesNotAvailable() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: nil, options: Self.options)
                try add(keychain, "a", "survives")
                Keychain.forgetOpenInstance(path: path)
                tpm.kill()
                #expect(openStatus(path) == .notAvailable)
                try tpm.restart()
                let reopened = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try secret(reopened, "a") == "survives")
            }
        }
    }

    @Test("A TPM-bound keychain leaves only through a backup: restored on another machine, its migratable items come back and its this-device-only items stay behind")
    func backupRestoresOnAnotherMachine() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            let backup = directory(of: path) + ".kcb"
            defer { try? FileManager.default.removeItem(atPath: backup) }
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: nil, options: Self.options)
                try add(keychain, "moves", "migratable")
                try add(keychain, "stays", "this device only", protection: .whenUnlockedThisDeviceOnly)
                let summary = try keychain.backup(to: backup, password: Data("backup pass".utf8))
                #expect(summary.itemCount == 2)
            }
            let elsewhere = directory(of: path) + "-elsewhere/t.keychain-db"
            defer {
                Keychain.forgetOpenInstance(path: elsewhere)
                try? FileManager.default.removeItem(atPath: directory(of: elsewhere))
            }
            let otherMachine = try SoftwareTPM()
            try otherMachine.selected {
                let keychain = try Keychain.create(path: elsewhere, passcode: nil, options: Self.options)
                let restored = try keychain.restore(from: backup, password: Data("backup pass".utf8))
                #expect(!restored.isSameDevice)
                #expect(restored.restoredCount == 1)
                #expect(restored.thisDeviceOnlyItemsLeftOut == 1)
                #expect(try secret(keychain, "moves") == "migratable")
                #expect(throws: KeychainCore.KeychainError.self) { try secret(keychain, "stays") }
            }
        }
    }
    private func unlockStatus(_ keychain: Keychain, _ passcode: String) -> KeychainCore.KeychainError.Code? {
        do {
            try keychain.unlock(passcode: Data(passcode.utf8))
            return nil
        } catch let error as KeychainCore.KeychainError {
            return error.code
        } catch {
            return .internal
        }
    }

    @Test("With a TPM the passcode is checked by it: the keybag holds a gate, unlocking, changing and removing the passcode work")
    func passcodeIsCheckedByTheTPM() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: Data("right".utf8), options: Self.options)
                try add(keychain, "a", "guarded")
                let keybag = try Keybag.load(path: keychain.keybagPath, deviceKey: keychain.deviceKey)
                #expect(keybag?.passcodeGate != nil)
                keychain.lock()
                #expect(unlockStatus(keychain, "wrong") == .authFailed)
                #expect(unlockStatus(keychain, "right") == nil)
                #expect(try secret(keychain, "a") == "guarded")
                try keychain.changePasscode(from: Data("right".utf8), to: Data("new".utf8))
                keychain.lock()
                #expect(unlockStatus(keychain, "right") == .authFailed)
                #expect(unlockStatus(keychain, "new") == nil)
                #expect(try secret(keychain, "a") == "guarded")
                try keychain.changePasscode(from: Data("new".utf8), to: nil)
                #expect(try Keybag.load(path: keychain.keybagPath, deviceKey: keychain.deviceKey)?.passcodeGate == nil)
                #expect(try secret(keychain, "a") == "guarded")
            }
        }
    }

    @Test("The TPM counts wrong passcodes: after its limit the right passcode is refused too, and copying back the keybag from before the failures resets nothing")
    func lockoutSurvivesARestoredKeybag() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: Data("right".utf8), options: Self.options)
                try add(keychain, "a", "guarded")
                let saved = try Data(contentsOf: URL(fileURLWithPath: keychain.keybagPath))
                // Each wrong passcode is followed by the right one, which clears the keybag's own
                // record: only the TPM's count grows, until the TPM refuses the right passcode.
                var failures = 0
                while failures < 20 {
                    keychain.lock()
                    failures += 1
                    #expect(unlockStatus(keychain, "wrong \(failures)") == .authFailed)
                    if unlockStatus(keychain, "right") != nil { break }
                }
                // The TPM locked out after exactly its configured number of failures.
                let state = try TPMContext(tcti: tpm.tcti, storageKey: false).dictionaryAttackState()
                #expect(state.isLockedOut)
                #expect(failures == state.maxTries)
                #expect(throws: KeychainCore.KeychainError.self) { try secret(keychain, "a") }
                // The keybag as it was before any failure, in a fresh process.
                Keychain.forgetOpenInstance(path: path)
                try saved.write(to: URL(fileURLWithPath: keychain.keybagPath))
                let restored = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(unlockStatus(restored, "right") == .authFailed)
                #expect(throws: KeychainCore.KeychainError.self) { try secret(restored, "a") }
                // The TPM stays reachable: items of class D still read.
                try add(restored, "d", "always", protection: .always)
                #expect(try secret(restored, "d") == "always")
            }
        }
    }
    /// Runs the `security` command built beside this test executable, in-process mode, with
    /// `KEYCHAIN_TPM` set to `tcti` in its environment only.
    private func security(tcti: String, home: String? = nil, environment extra: [String: String] = [:], _ arguments: String...) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: (TestMode.testExecutable as NSString).deletingLastPathComponent + "/security")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment["KEYCHAIN_TPM"] = tcti
        environment["KEYCHAIN_MODE"] = "embedded"
        if let home { environment["XDG_DATA_HOME"] = home }
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }

    @Test("KEYCHAIN_TPM selects the TPM of a process: security show-keychain-info says the device key is sealed by it, and without it the keychain does not open")
    func showKeychainInfoSaysSealed() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                try Keychain.create(path: path, passcode: nil, options: Self.options)
                Keychain.forgetOpenInstance(path: path)
            }
            let info = try security(tcti: tpm.tcti, "show-keychain-info", path)
            #expect(info.status == 0)
            #expect(info.output == "device key: sealed by the TPM (opens on this machine only)\nopen in this process: unlocked (no password)\n")
            #expect(try security(tcti: "", "show-keychain-info", path).status != 0)
        }
    }
    @Test("A keychain bound to the TPM on its first write prints nothing on standard error: asking whether its rollback counter exists logs no TPM library error")
    func bindingLogsNothing() throws {
        let tpm = try SoftwareTPM()
        let home = NSTemporaryDirectory() + "tpm-quiet-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let add = try security(tcti: tpm.tcti, home: home, "add-generic-password", "-a", "me", "-s", "quiet", "-w", "secret")
        #expect(add.status == 0)
        #expect(add.error == "")
        let find = try security(tcti: tpm.tcti, home: home, "find-generic-password", "-a", "me", "-s", "quiet", "-w")
        #expect(find.output == "secret\n")
        #expect(find.error == "")
    }

    /// The libraries the dynamic loader reported opening in a run with `LD_DEBUG=files`.
    private static func loadedLibraries(_ error: String) -> [String] {
        error.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "file=") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    @Test("A keychain without a TPM never loads libtss2: a security run binds none of its libraries", .enabled(if: access("/dev/tpmrm0", R_OK | W_OK) != 0, "this machine has a TPM device"))
    func libtss2IsNotLoadedWithoutATPM() throws {
        let home = NSTemporaryDirectory() + "tpm-none-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let add = try security(tcti: "", home: home, environment: ["LD_DEBUG": "files"], "add-generic-password", "-a", "me", "-s", "plain", "-w", "secret")
        #expect(add.status == 0)
        let loaded = Self.loadedLibraries(add.error)
        try #require(loaded.contains { $0.hasPrefix("libsqlite3.so") }, "the loader's account was not read")
        #expect(!loaded.contains { $0.hasPrefix("libtss2") })
    }

    @Test("A keychain with a TPM loads libtss2 when it first talks to the TPM, and binds its device key there")
    func libtss2IsLoadedForATPM() throws {
        let tpm = try SoftwareTPM()
        let home = NSTemporaryDirectory() + "tpm-load-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: home) }
        let add = try security(tcti: tpm.tcti, home: home, environment: ["LD_DEBUG": "files"], "add-generic-password", "-a", "me", "-s", "bound", "-w", "secret")
        #expect(add.status == 0)
        let loaded = Self.loadedLibraries(add.error)
        #expect(loaded.contains("libtss2-esys.so.0"))
        #expect(loaded.contains("libtss2-tctildr.so.0"))
        let info = try security(tcti: tpm.tcti, home: home, "show-keychain-info")
        #expect(info.output.hasPrefix("device key: sealed by the TPM"))
    }

    /// Puts the keychain's directory back to `files`: each file rewritten (private), files that
    /// were not there removed.
    private func putBack(_ files: [String: Data], of path: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory(of: path)) where files[name] == nil {
            try FileManager.default.removeItem(atPath: directory(of: path) + "/" + name)
        }
        for (name, contents) in files {
            let file = directory(of: path) + "/" + name
            try? FileManager.default.removeItem(atPath: file)
            #expect(FileManager.default.createFile(atPath: file, contents: contents, attributes: [.posixPermissions: 0o600]))
        }
    }

    @Test("Putting back an older copy of the whole keychain (database, write-ahead log, ledger, keybag) is reported as damage on open (errSecInvalidKeychain); the current files still open")
    func wholeKeychainRollbackIsDetected() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: nil, options: Self.options)
                try add(keychain, "a", "first")
                Keychain.forgetOpenInstance(path: path)
                let older = try files(of: path)
                let reopened = try Keychain.open(path: path, create: false, options: Self.options)
                try add(reopened, "b", "second")
                try add(reopened, "c", "third")
                Keychain.forgetOpenInstance(path: path)
                let current = try files(of: path)
                try putBack(older, of: path)
                #expect(openStatus(path) == .invalidKeychain)
                try putBack(current, of: path)
                let again = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try secret(again, "a") == "first")
                #expect(try secret(again, "c") == "third")
            }
        }
    }

    @Test("A TPM-bound keychain's write while the TPM is gone is errSecNotAvailable, never a crash, and changes nothing")
    func writeWithoutTheTPMIsRefused() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: nil, options: Self.options)
                try add(keychain, "a", "first")
                tpm.kill()
                do {
                    try add(keychain, "b", "second")
                    Issue.record("a write went through without the TPM's counter")
                } catch let error as KeychainCore.KeychainError {
                    #expect(error.code == .notAvailable)
                }
                #expect(try secret(keychain, "a") == "first")
                try tpm.restart()
                #expect(throws: KeychainCore.KeychainError.self) { try secret(keychain, "b") }
                try add(keychain, "b", "second")
                Keychain.forgetOpenInstance(path: path)
                let reopened = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try secret(reopened, "b") == "second")
            }
        }
    }
    @Test("A TPM-bound keychain whose ledger root was damaged still opens, and the write that rebuilds the root binds it to the counter again")
    func damagedRootIsBoundAgain() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: nil, options: Self.options)
                try add(keychain, "a", "first")
                try add(keychain, "b", "second")
                Keychain.forgetOpenInstance(path: path)
                try SQLiteConnection(path: path).execute("UPDATE ledger SET body = zeroblob(length(body)) WHERE id = 0")
                let damaged = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(throws: KeychainCore.KeychainError.self) { try secret(damaged, "a") }
                try add(damaged, "c", "after the damage")
                Keychain.forgetOpenInstance(path: path)
                let reopened = try Keychain.open(path: path, create: false, options: Self.options)
                #expect(try secret(reopened, "c") == "after the damage")
            }
        }
    }
    @Test("An unlock while the TPM that checks the passcode is gone is errSecNotAvailable, never a crash; the passcode unlocks once the TPM is back")
    func unlockWithoutTheTPMIsNotAvailable() throws {
        try withKeychainPath { path in
            let tpm = try SoftwareTPM()
            try tpm.selected {
                let keychain = try Keychain.create(path: path, passcode: Data("right".utf8), options: Self.options)
                try add(keychain, "a", "guarded")
                keychain.lock()
                tpm.kill()
                #expect(unlockStatus(keychain, "right") == .notAvailable)
                try tpm.restart()
                #expect(unlockStatus(keychain, "right") == nil)
                #expect(try secret(keychain, "a") == "guarded")
            }
        }
    }
}
