import Foundation
import Glibc
import KeychainCore
import Testing

@testable import KeychainDaemon

/// Which access groups a caller gets, decided from real peers: the administration tool gets
/// every group, a registered program its entitlements' groups while its executable is the one
/// registered, a Flatpak-sandboxed program its application's group only, any other program of
/// the user the group `default`, and a peer of another user nothing.
@Suite("Caller policy")
struct CallerPolicyTests {
    /// A test's directory, socket, keychain and policy; the administration tool is a copy of
    /// `sleep` named `security-tool`, handed to the policy as the daemon's test seam allows.
    struct Fixture {
        let directory: PeerTestDirectory
        let socket: ListeningSocket
        let keychain: Keychain
        let administrator: String
        var flatpakInfo: FlatpakInfoLocation = FlatpakInfoLocation { _ in "/nonexistent/.flatpak-info" }
        var expectedUID = getuid()
        /// The path the policy is given for the tool, when not the tool's own.
        var administratorLink: String?

        init() throws {
            directory = try PeerTestDirectory()
            socket = try ListeningSocket(in: directory)
            keychain = try Keychain.open(
                path: directory.path + "/keychains/policy.keychain-db", options: KeychainOptions(passcodeIterations: 1_000))
            administrator = try directory.copyExecutable(named: "security-tool")
        }

        var policy: CallerPolicy {
            CallerPolicy(expectedUID: expectedUID, administratorPaths: [administratorLink ?? administrator], flatpakInfo: flatpakInfo)
        }

        /// The access a child running `executable` gets.
        func access(running executable: String, as user: (uid: UInt32, gid: UInt32)? = nil) throws -> CallerAccess {
            let child = try PeerChild(socket, running: executable, as: user)
            return try policy.access(for: try PeerCredentials(socket: child.connection)) { try keychain.registeredPrograms() }
        }

        /// The status the access of a child running `executable` ends with.
        func refusal(running executable: String, as user: (uid: UInt32, gid: UInt32)? = nil) throws -> KeychainError.Code? {
            let child = try PeerChild(socket, running: executable, as: user)
            return status { _ = try policy.access(for: try PeerCredentials(socket: child.connection)) { try keychain.registeredPrograms() } }
        }

        /// Registers `executable` as it is now with `groups`.
        func register(_ executable: String, groups: [String]) throws {
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0"><dict>
                <key>keychain-access-groups</key><array>\(groups.map { "<string>\($0)</string>" }.joined())</array>
                </dict></plist>
                """
            try keychain.registerProgram(
                RegisteredProgram(
                    executablePath: executable, executableDigest: try referenceDigest(of: executable),
                    entitlements: try Entitlements(propertyList: Data(plist.utf8))))
        }
    }

    static let ordinary = CallerAccess(standing: .ordinary, groups: [AccessContext.defaultGroup])

    @Test("a program of the user that is neither registered, sandboxed nor the administration tool gets the group default, and does not administer")
    func ordinaryProgram() throws {
        let fixture = try Fixture()
        let access = try fixture.access(running: try fixture.directory.copyExecutable(named: "plain-app"))
        #expect(access == Self.ordinary)
        #expect(access.context.accessGroups == ["default"])
        #expect(!access.context.allowsAllGroups)
        #expect(!access.isAdministrator)
    }

    @Test("the administration tool gets every group and administers; a copy of it at another path (another file) does not")
    func administrationTool() throws {
        let fixture = try Fixture()
        let access = try fixture.access(running: fixture.administrator)
        #expect(access.isAdministrator)
        #expect(access.standing == .administrator)
        #expect(access.context.allowsAllGroups)
        #expect(try access.context.defaultGroupForAdd() == AccessContext.defaultGroup)
        let copy = try fixture.directory.copyExecutable(fixture.administrator, named: "security-copy")
        #expect(try fixture.access(running: copy) == Self.ordinary)
        // Named through a symbolic link, the tool is the file the link names.
        var linked = fixture
        linked.administratorLink = fixture.directory.path + "/security-link"
        try FileManager.default.createSymbolicLink(atPath: linked.administratorLink!, withDestinationPath: fixture.administrator)
        #expect(try linked.access(running: fixture.administrator).isAdministrator)
    }

    @Test("the administration tool replaced at its path by another program: the program running the old file is no longer the tool")
    func replacedAdministrationTool() throws {
        let fixture = try Fixture()
        let child = try PeerChild(fixture.socket, running: fixture.administrator)
        try FileManager.default.removeItem(atPath: fixture.administrator)
        _ = try fixture.directory.copyExecutable("/bin/true", named: "security-tool")
        let access = try fixture.policy.access(for: try PeerCredentials(socket: child.connection)) { [] }
        #expect(access == Self.ordinary)
    }

    @Test("by default the administration tool is the `security` beside the daemon's own executable")
    func administrationToolBesideDaemon() throws {
        let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let directory = (own as NSString).deletingLastPathComponent
        #expect(try CallerPolicy.administratorPaths(besideDaemonWith: ["/opt/extra-tool"]) == [directory + "/security", "/opt/extra-tool"])
    }

    @Test("a registered program gets its entitlements' groups; changed after registration, it gets only the group default")
    func registeredProgram() throws {
        let fixture = try Fixture()
        let program = try fixture.directory.copyExecutable(named: "mail-app")
        try fixture.register(program, groups: ["TEAM1.mail", "TEAM1.shared"])
        let access = try fixture.access(running: program)
        #expect(access == CallerAccess(standing: .registeredProgram(executablePath: program), groups: ["TEAM1.mail", "TEAM1.shared"]))
        #expect(access.context.isEntitled(to: "TEAM1.shared"))
        #expect(!access.context.isEntitled(to: "default"))
        #expect(!access.isAdministrator)

        // The executable is updated (or replaced) after registration: it loses its groups.
        try PeerTestDirectory.append("patched", to: program)
        #expect(try fixture.access(running: program) == Self.ordinary)
        // Registered again as it is now, it has them back.
        try fixture.register(program, groups: ["TEAM1.mail"])
        #expect(try fixture.access(running: program).context.accessGroups == ["TEAM1.mail"])
    }

    @Test("the registered program's content at another path gets only the group default (a registration pins the path and the digest)")
    func registeredContentElsewhere() throws {
        let fixture = try Fixture()
        let program = try fixture.directory.copyExecutable(named: "mail-app")
        try fixture.register(program, groups: ["TEAM1.mail"])
        let copy = try fixture.directory.copyExecutable(program, named: "impostor")
        #expect(try fixture.access(running: copy) == Self.ordinary)
    }

    @Test("an altered program registry refuses the caller (errSecDecode), never grants the default group in its place")
    func alteredRegistryRefuses() throws {
        let fixture = try Fixture()
        let program = try fixture.directory.copyExecutable(named: "mail-app")
        let child = try PeerChild(fixture.socket, running: program)
        let outcome = status {
            _ = try fixture.policy.access(for: try PeerCredentials(socket: child.connection)) {
                throw KeychainError(.decode, "the program registry was altered")
            }
        }
        #expect(outcome == .decode)
    }

    @Test("a Flatpak-sandboxed program gets exactly its application's group, even running the administration tool or a registered program")
    func sandboxedProgram() throws {
        var fixture = try Fixture()
        let registered = try fixture.directory.copyExecutable(named: "mail-app")
        try fixture.register(registered, groups: ["TEAM1.mail"])
        let info = fixture.directory.path + "/flatpak-info"
        try Data("[Application]\nname=org.example.Notes\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n[Instance]\ninstance-id=1\n".utf8)
            .write(to: URL(fileURLWithPath: info))
        fixture.flatpakInfo = FlatpakInfoLocation { _ in info }
        let expected = CallerAccess(standing: .sandboxed(applicationID: "org.example.Notes"), groups: ["org.example.Notes"])
        for executable in [fixture.administrator, registered, try fixture.directory.copyExecutable(named: "notes")] {
            let access = try fixture.access(running: executable)
            #expect(access == expected)
            #expect(access.context.accessGroups == ["org.example.Notes"])
            #expect(!access.context.allowsAllGroups)
            #expect(!access.isAdministrator)
        }
    }

    @Test("the sandbox seam is asked about the peer's own pid, and the default location is inside the process's root")
    func sandboxSeamGetsPeerPid() throws {
        var fixture = try Fixture()
        let info = fixture.directory.path + "/flatpak-info"
        try Data("[Application]\nname=org.example.Notes\n".utf8).write(to: URL(fileURLWithPath: info))
        let program = try fixture.directory.copyExecutable(named: "notes")
        let child = try PeerChild(fixture.socket, running: program)
        let sandboxedPid = child.pid
        fixture.flatpakInfo = FlatpakInfoLocation { $0 == sandboxedPid ? info : "/nonexistent/.flatpak-info" }
        let access = try fixture.policy.access(for: try PeerCredentials(socket: child.connection)) { [] }
        #expect(access.standing == .sandboxed(applicationID: "org.example.Notes"))
        #expect(try fixture.access(running: program) == Self.ordinary)
        #expect(FlatpakInfoLocation.sandboxRoot.path(1234) == "/proc/1234/root/.flatpak-info")
    }

    @Test("a sandbox whose application cannot be told (no name, an invalid ID, a symbolic link) refuses the caller: errSecAuthFailed")
    func unreadableSandboxRefused() throws {
        var fixture = try Fixture()
        let program = try fixture.directory.copyExecutable(named: "notes")
        let info = fixture.directory.path + "/flatpak-info"
        for content in ["[Application]\nruntime=x\n", "[Application]\nname=not an id\n", "[Instance]\nname=org.example.Notes\n"] {
            try Data(content.utf8).write(to: URL(fileURLWithPath: info))
            fixture.flatpakInfo = FlatpakInfoLocation { _ in info }
            #expect(try fixture.refusal(running: program) == .authFailed, "\(content)")
        }
        let valid = fixture.directory.path + "/valid-info"
        try Data("[Application]\nname=org.example.Notes\n".utf8).write(to: URL(fileURLWithPath: valid))
        let link = fixture.directory.path + "/linked-info"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: valid)
        fixture.flatpakInfo = FlatpakInfoLocation { _ in link }
        #expect(try fixture.refusal(running: program) == .authFailed)
    }

    @Test("a peer of another user is refused (errSecAuthFailed); a policy serving that user (system mode's socket for it) accepts it",
          .enabled(if: getuid() == 0, "creating a user and running a child as it needs root (CI runs as root)"))
    func otherUserRefused() throws {
        var fixture = try Fixture()
        let user = try otherTestUser()
        let program = try fixture.directory.copyExecutable(named: "other-users-app")
        #expect(try fixture.refusal(running: program, as: user) == .authFailed)
        // Even running the administration tool.
        #expect(try fixture.refusal(running: fixture.administrator, as: user) == .authFailed)
        fixture.expectedUID = user.uid
        #expect(try fixture.access(running: program, as: user) == Self.ordinary)
        #expect(try fixture.refusal(running: program) == .authFailed)
    }

    @Test("Flatpak's application-ID rule: three or more dot-separated elements of letters, digits, _ and -, none starting with a digit")
    func applicationIDs() {
        for valid in ["org.example.App", "com.example_1.My-App", "io.github.user.Tool"] {
            #expect(FlatpakInfo.isValidApplicationID(valid), "\(valid)")
        }
        for invalid in ["org.example", "org..App", "org.1example.App", "org.example.App/..", "org.example.Äpp", ".org.example.App", ""] {
            #expect(!FlatpakInfo.isValidApplicationID(invalid), "\(invalid)")
        }
        #expect(FlatpakInfo(parsing: Data("[Application]\nname=org.a.B\nname=org.c.D\n".utf8)) == nil)
        #expect(FlatpakInfo(parsing: Data("# comment\n[Application]\n name = org.a.B \n".utf8))?.applicationID == "org.a.B")
    }
}
