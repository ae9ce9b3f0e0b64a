import Foundation
import KeychainCore
import KeychainService
import Testing

/// keychaind as its clients meet it: one lock state for every program, access groups decided
/// by the daemon, and a service that bad clients cannot take down.
@Suite("keychaind", .serialized)
struct DaemonTests {
    static let interactionNotAllowed = "-25308"
    static let missingEntitlement = "-34018"

    @Test("a lock in one process locks every client; an unlock in security unlock-keychain unlocks for an app")
    func oneLockStateForEveryClient() throws {
        let fixture = try DaemonFixture()
        #expect(try fixture.security("set-keychain-password", "-o", "", "-p", "pw").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "add", "mail", "me", "s3cret") == "0")
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == "0 s3cret")
        #expect(try fixture.security("lock-keychain").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.interactionNotAllowed)
        let info = try fixture.security("show-keychain-info")
        #expect(info.output.hasPrefix("device key: in a file (not bound to a TPM)\nheld by keychaind (pid ") && info.output.hasSuffix("): locked\n"))
        #expect(try fixture.security("unlock-keychain", "-p", "pw").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == "0 s3cret")
    }

    @Test("a registered program uses its group; another program gets errSecMissingEntitlement for it and cannot see it")
    func registeredProgramsAndOthers() throws {
        let fixture = try DaemonFixture()
        let app = try fixture.copyOfTestClient(named: "mail-app")
        let other = try fixture.copyOfTestClient(named: "other-app")
        let grant = try fixture.entitlements(["TEAM.mail"], named: "mail.entitlements")
        let registration = try fixture.security("entitlements", "add", app, grant)
        #expect(registration.status == 0, "\(registration.error)")
        #expect(try fixture.app(app, "add", "mail", "me", "s3cret", "TEAM.mail") == "0")
        #expect(try fixture.app(app, "find", "mail", "me") == "0 s3cret")
        #expect(try fixture.app(other, "add", "mail", "you", "x", "TEAM.mail") == Self.missingEntitlement)
        #expect(try fixture.app(other, "find", "mail", "me", "TEAM.mail") == Self.missingEntitlement)
        #expect(try fixture.app(other, "find", "mail", "me") == "-25300")
        let listed = try fixture.security("entitlements", "list")
        #expect(listed.output.contains(app + "\n") && listed.output.contains("access groups: TEAM.mail\n"))
        // The owner sees every group.
        #expect(try fixture.security("find-generic-password", "-s", "mail", "-w").output == "s3cret\n")
    }

    @Test("a program whose executable changed after it was registered loses its groups")
    func changedExecutableLosesItsGroups() throws {
        let fixture = try DaemonFixture()
        let app = try fixture.copyOfTestClient(named: "mail-app")
        #expect(try fixture.security("entitlements", "add", app, try fixture.entitlements(["TEAM.mail"], named: "e")).status == 0)
        #expect(try fixture.app(app, "add", "mail", "me", "s3cret", "TEAM.mail") == "0")
        // An update of the program: same path, other content, put in place as a package manager
        // does (a new file renamed over the old; writing into a file just run can meet ETXTBSY).
        var updated = try Data(contentsOf: URL(fileURLWithPath: app))
        updated.append(0)
        try ExecutableFile.write(updated, to: app + ".new")
        #expect(rename(app + ".new", app) == 0)
        #expect(try fixture.app(app, "find", "mail", "me", "TEAM.mail") == Self.missingEntitlement)
        #expect(try fixture.app(app, "find", "mail", "me") == "-25300")
        // Registered again, it has its group back.
        #expect(try fixture.security("entitlements", "add", app, fixture.root + "/e").status == 0)
        #expect(try fixture.app(app, "find", "mail", "me") == "0 s3cret")
    }

    @Test("only the administration tool beside the daemon registers programs: a copy of it elsewhere is refused")
    func onlyTheOwnerToolRegisters() throws {
        let fixture = try DaemonFixture()
        let grant = try fixture.entitlements(["*"], named: "all.entitlements")
        // Same content, another file: not the administration tool, so errSecMissingEntitlement
        // (exit status 30) and nothing registered.
        let toolCopy = fixture.root + "/security"
        try ExecutableFile.copy(DaemonFixture.securityTool, to: toolCopy)
        let refused = try fixture.run(toolCopy, ["entitlements", "add", DaemonFixture.testClient, grant])
        #expect(refused.status == 30, "\(refused.error)")
        #expect(try fixture.security("entitlements", "list").output.isEmpty)
    }

    @Test("a Flatpak-sandboxed program sees only its application's group")
    func sandboxedProgram() throws {
        let sandboxes = FileManager.default.temporaryDirectory.appendingPathComponent("flatpak-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: sandboxes) }
        let fixture = try DaemonFixture(flatpakInfo: sandboxes)
        // The owner stores an item in the app's group and one in another group.
        #expect(try fixture.security("add-generic-password", "-s", "mail", "-a", "me", "-w", "other-secret").status == 0)
        let app = try fixture.copyOfTestClient(named: "sandboxed-app")
        // Each run of the app is a new pid: describe its sandbox before it connects, through a
        // shell that writes the file for its own pid and then becomes the app.
        let script = """
            mkdir -p '\(sandboxes)'/$$ && printf '[Application]\\nname=org.example.Mail\\n' > '\(sandboxes)'/$$/.flatpak-info && exec '\(app)' "$@"
            """
        let add = try fixture.run("/bin/sh", ["-c", script, "sh", "add", "mail", "sandboxed", "s", "org.example.Mail"])
        #expect(add.output == "0\n")
        let own = try fixture.run("/bin/sh", ["-c", script, "sh", "count", "mail"])
        #expect(own.output == "0 1\n")
        let elsewhere = try fixture.run("/bin/sh", ["-c", script, "sh", "add", "mail", "x", "s", "default"])
        #expect(elsewhere.output == Self.missingEntitlement + "\n")
        // Without a sandbox description the same program is an ordinary one.
        #expect(try fixture.app(app, "count", "mail") == "0 1")
    }

    @Test("a daemon killed with SIGKILL restarts with the keychain locked, every acknowledged item kept")
    func restartAfterCrashIsLocked() throws {
        let fixture = try DaemonFixture()
        #expect(try fixture.security("set-keychain-password", "-o", "", "-p", "pw").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "add", "mail", "me", "s3cret") == "0")
        fixture.killDaemon()
        try fixture.startDaemon()
        #expect(try fixture.security("show-keychain-info").output.hasSuffix("): locked since start\n"))
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == Self.interactionNotAllowed)
        #expect(try fixture.security("unlock-keychain", "-p", "pw").status == 0)
        #expect(try fixture.app(DaemonFixture.testClient, "find", "mail", "me") == "0 s3cret")
    }

    @Test("while keychaind holds a keychain, a process that opens it itself is refused with a clear status")
    func embeddedProcessIsRefused() throws {
        let fixture = try DaemonFixture()
        #expect(try fixture.app(DaemonFixture.testClient, "add", "mail", "me", "s3cret") == "0")
        var environment = fixture.environment
        environment["KEYCHAIN_MODE"] = "embedded"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: DaemonFixture.testClient)
        process.arguments = ["find", "mail", "me"]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(output == "-25291 \n")  // errSecNotAvailable
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: DaemonFixture.securityTool)
        tool.arguments = ["find-generic-password", "-s", "mail", "-w"]
        tool.environment = environment
        let errors = Pipe()
        tool.standardError = errors
        tool.standardOutput = FileHandle.nullDevice
        try tool.run()
        tool.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(tool.terminationStatus != 0)
        #expect(message.contains("held by keychaind (pid "), "\(message)")
    }
}
