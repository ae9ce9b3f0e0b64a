import Foundation
import Glibc
import KeychainCore
import KeychainService
import Testing

/// `keychaind --system` as users meet it: their items go through the daemon into files they
/// cannot open, each user reaches only their own socket and keychains, and the daemon runs as
/// its service user.
@Suite("keychaind --system", .serialized)
struct SystemDaemonTests {
    static let notAvailable = "-25291"
    static let authFailed = "-25293"
    static let noSuchKeychain = "-25294"
    static let itemNotFound = "-25300"

    @Test("a user's items go through the system daemon into files owned by the service user that the user cannot open")
    func filesUnreadableToTheUser() throws {
        let fixture = try SystemDaemonFixture()
        let user = fixture.first
        #expect(try fixture.app("add", "mail", "me", "s3cret", as: user) == "0")
        #expect(try fixture.app("find", "mail", "me", as: user) == "0 s3cret")
        let added = try fixture.security("add-generic-password", "-s", "web", "-a", "me", "-w", "hunter2", as: user)
        #expect(added.status == 0, "\(added.error)")
        let found = try fixture.security("find-generic-password", "-s", "mail", "-a", "me", "-w", as: user)
        #expect(found.output == "s3cret\n", "\(found.error)")
        #expect(try fixture.app("find", "web", "me", as: user) == "0 hunter2")

        // The files: the service user's, directories 0700, files 0600.
        let directory = fixture.keychainDirectory(of: user)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        for name in ["login.keychain-db", "login.keychain-db.keybag", "device.key"] {
            #expect(files.contains(name), "\(name) missing from \(files)")
        }
        for (path, mode) in [(fixture.state, 0o700), (directory, 0o700)] + files.map({ (directory + "/" + $0, 0o600) }) {
            var info = stat()
            try #require(lstat(path, &info) == 0)
            #expect(info.st_uid == fixture.service.uid, "\(path) is owned by \(info.st_uid)")
            #expect(Int(info.st_mode & 0o7777) == mode, "\(path) has mode \(String(info.st_mode & 0o7777, radix: 8))")
        }
        // The user cannot open them (nor the directories), whatever the keychain holds.
        for path in [fixture.state, directory] + files.map({ directory + "/" + $0 }) {
            #expect(try fixture.openError(path, as: user) == EACCES, "\(path) opened by the user")
        }
    }

    @Test("another user cannot connect to a user's socket, is refused before any request, and cannot reach the user's keychains")
    func otherUsersAreKeptOut() throws {
        let fixture = try SystemDaemonFixture()
        let (owner, other) = (fixture.first, fixture.second)
        #expect(try fixture.app("add", "mail", "me", "s3cret", as: owner) == "0")
        let socket = fixture.socket(of: owner)

        // The kernel refuses the connection: the socket is the owner's, mode 0600.
        var info = stat()
        try #require(stat(socket, &info) == 0)
        #expect(info.st_uid == owner.uid && info.st_mode & 0o777 == 0o600)
        #expect(try fixture.app("find", "mail", "me", as: other, socket: socket) == Self.notAvailable)

        // Opened to everyone, the socket still serves only its user: the daemon answers another
        // user's connection with errSecAuthFailed and closes it before reading anything (the
        // probe sends nothing; it gives up after a minute without an answer or an end).
        try #require(chmod(socket, 0o666) == 0)
        let probe = #"""
            use Socket;
            socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
            connect($s, pack_sockaddr_un($ARGV[0])) or die "connect: $!";
            my $all = "";
            while (1) {
                my $ready = ""; vec($ready, fileno($s), 1) = 1;
                if (select($ready, undef, undef, 60) < 1) { print "no answer"; exit 0 }
                last unless sysread($s, my $chunk, 65536);
                $all .= $chunk;
            }
            print unpack("H*", $all);
            """#
        let answer = try fixture.runAs(other, ["/usr/bin/perl", "-e", probe, socket]).output
        var received = try #require(Self.bytes(hex: answer), "the daemon did not close the connection: \(answer)")
        let payload = try #require(try ServiceMessageCoding.nextPayload(from: &received))
        guard case .failure(let error) = try ServiceMessageCoding.response(fromPayload: payload) else {
            Issue.record("another user's connection was not refused")
            return
        }
        #expect(error.code == .authFailed)
        let borrowed = try fixture.app("find", "mail", "me", as: other, socket: socket)
        #expect(!borrowed.contains("s3cret") && [Self.authFailed, Self.notAvailable].contains(borrowed), "\(borrowed)")

        // On its own socket the other user has its own keychain, without the owner's items, and
        // cannot name the owner's keychain, by its path, through `..` or through a link.
        #expect(try fixture.app("find", "mail", "me", as: other) == Self.itemNotFound)
        let ownersKeychain = fixture.keychainDirectory(of: owner) + "/login.keychain-db"
        let planted = fixture.keychainDirectory(of: other) + "/planted.keychain-db"
        try #require(symlink(ownersKeychain, planted) == 0)
        for path in [ownersKeychain, fixture.keychainDirectory(of: other) + "/../\(owner.uid)/login.keychain-db", planted, "/tmp/elsewhere.keychain-db"] {
            let run = try fixture.security("find-generic-password", "-s", "mail", "-w", path, as: other)
            #expect(run.status != 0 && !run.output.contains("s3cret"), "\(path): \(run.output)")
            #expect(run.error.contains("could not be found"), "\(path): \(run.error)")
        }
    }

    @Test("within a user's connection the caller policy applies: the security tool administers, a registered program gets its group, another program does not")
    func callerPolicyPerUser() throws {
        let fixture = try SystemDaemonFixture()
        let user = fixture.first
        let app = fixture.root + "/mail-app", other = fixture.root + "/other-app"
        try ExecutableFile.copy(DaemonFixture.testClient, to: app)
        try ExecutableFile.copy(DaemonFixture.testClient, to: other)
        let grant = fixture.root + "/mail.entitlements"
        try Data(#"<?xml version="1.0"?><plist version="1.0"><dict><key>keychain-access-groups</key><array><string>TEAM.mail</string></array></dict></plist>"#.utf8)
            .write(to: URL(fileURLWithPath: grant))
        #expect(chmod(grant, 0o644) == 0)
        let registration = try fixture.security("entitlements", "add", app, grant, as: user)
        #expect(registration.status == 0, "\(registration.error)")
        #expect(try fixture.run(app, ["add", "mail", "me", "s3cret", "TEAM.mail"], as: user).output == "0\n")
        #expect(try fixture.run(other, ["find", "mail", "me", "TEAM.mail"], as: user).output == "-34018 \n")
        #expect(try fixture.run(other, ["find", "mail", "me"], as: user).output == "\(Self.itemNotFound) \n")
        #expect(try fixture.security("find-generic-password", "-s", "mail", "-w", as: user).output == "s3cret\n")
        // The daemon reads no file of its state directory for a client, and writes no backup
        // outside the user's own directory.
        let theirs = fixture.keychainDirectory(of: fixture.second) + "/login.keychain-db"
        #expect(try fixture.app("add", "x", "y", "z", as: fixture.second) == "0")
        #expect(try fixture.security("entitlements", "add", theirs, grant, as: user).status == 30)
        #expect(try fixture.security("backup-keychain", "-P", "pw", "-o", fixture.root + "/out.backup", as: user).status == 50)
        #expect(try fixture.security("backup-keychain", "-P", "pw", "-o", fixture.keychainDirectory(of: fixture.second) + "/b", as: user).status == 50)
        #expect(access(fixture.root + "/out.backup", F_OK) != 0 && access(fixture.keychainDirectory(of: fixture.second) + "/b", F_OK) != 0)
    }

    @Test("security sync now and sync status through the system daemon run in the calling process, which the daemon leaves to it")
    func syncRunsInTheCallingProcess() throws {
        let fixture = try SystemDaemonFixture()
        for action in ["now", "status"] {
            // The exchange's own message (errSecUnimplemented would come from a daemon asked to sync).
            let run = try fixture.security("sync", action, as: fixture.first)
            #expect(run.status == 1)
            #expect(run.error == "security: sync \(action): this keychain does not sync (use security sync enable or join)\n")
        }
    }

    @Test("the system daemon runs as its service user, keeping no capability but CAP_SYS_PTRACE")
    func runsAsTheServiceUser() throws {
        let fixture = try SystemDaemonFixture()
        let pid = try #require(fixture.daemon?.processIdentifier)
        let uid = String(fixture.service.uid), gid = String(fixture.service.gid)
        #expect(try SystemDaemonFixture.status("Uid", of: pid) == [uid, uid, uid, uid])
        #expect(try SystemDaemonFixture.status("Gid", of: pid) == [gid, gid, gid, gid])
        #expect(try SystemDaemonFixture.status("Groups", of: pid).allSatisfy { $0 == gid })
        for name in ["CapEff", "CapPrm", "CapBnd"] {
            #expect(try SystemDaemonFixture.status(name, of: pid) == ["0000000000080000"], "\(name)")
        }
        #expect(try SystemDaemonFixture.status("NoNewPrivs", of: pid) == ["1"])
        // A second daemon on the same runtime directory does not start.
        let second = try fixture.start(["--system", "--user", fixture.service.name, "--state-directory", fixture.state, "--runtime-directory", fixture.runtime])
        second.waitUntilExit()
        #expect(second.terminationStatus == 75)
    }

    @Test("started as an ordinary user, keychaind --system serves that user from directories it owns, and cannot become another")
    func ordinaryUserRunsItself() throws {
        let fixture = try SystemDaemonFixture()
        let user = fixture.first
        let own = fixture.root + "/own-\(user.name)"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try #require(chown(own, user.uid, user.gid) == 0)
        let (state, runtime) = (own + "/state", own + "/run")
        let refused = try fixture.start(
            ["--system", "--user", fixture.service.name, "--state-directory", state, "--runtime-directory", runtime], as: user)
        refused.waitUntilExit()
        #expect(refused.terminationStatus == 77)

        let daemon = try fixture.start(["--system", "--state-directory", state, "--runtime-directory", runtime], as: user)
        defer {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        try fixture.waitUntil { access(state + "/\(user.uid)", F_OK) == 0 || !daemon.isRunning }
        #expect(daemon.isRunning)
        let socket = ServiceLocation.systemSocket(for: user.uid, in: runtime)
        let environment = [
            "KEYCHAIN_MODE": "system", "KEYCHAIND_SOCKET": socket, "KEYCHAIND_STATE_DIRECTORY": state,
            "HOME": fixture.home(of: user), "XDG_DATA_HOME": fixture.home(of: user), "PATH": "/usr/bin:/bin",
        ]
        #expect(try fixture.runAs(user, [DaemonFixture.testClient, "add", "mail", "me", "s3cret"], environment: environment).output == "0\n")
        #expect(try fixture.runAs(user, [DaemonFixture.testClient, "find", "mail", "me"], environment: environment).output == "0 s3cret\n")
        var info = stat()
        try #require(stat(state + "/\(user.uid)/login.keychain-db", &info) == 0)
        #expect(info.st_uid == user.uid && info.st_mode & 0o777 == 0o600)
        #expect(try SystemDaemonFixture.status("Uid", of: daemon.processIdentifier).first == String(user.uid))
    }

    /// The bytes a hex string spells; nil for anything else (an empty string is no bytes).
    static func bytes(hex: String) -> Data? {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0, !characters.isEmpty else { return nil }
        var data = Data()
        var index = 0
        while index < characters.count {
            guard let byte = UInt8(String(decoding: characters[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            data.append(byte)
            index += 2
        }
        return data
    }
}
