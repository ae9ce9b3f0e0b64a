import KeychainDaemon
import Testing

@Suite("keychaind's command line")
struct DaemonOptionsTests {
    @Test("Each option sets what it names; --help wins")
    func options() throws {
        var expected = DaemonOptions()
        expected.foreground = true
        expected.socket = "/tmp/k.sock"
        expected.idleExit = nil
        #expect(try DaemonOptions.parse(["--foreground", "--socket", "/tmp/k.sock", "--idle-exit", "0"]) == .serve(expected))
        #expect(try DaemonOptions.parse(["--system", "--help"]) == .help)
        #expect(try DaemonOptions.parse([]) == .serve(DaemonOptions()))
    }

    @Test("System mode takes its user, directories and users to serve")
    func systemOptions() throws {
        var expected = DaemonOptions()
        expected.system = true
        expected.user = "kc"
        expected.userGiven = true
        expected.stateDirectory = "/srv/state"
        expected.runtimeDirectory = "/srv/run"
        expected.users = [1000, 1001]
        let arguments = ["--system", "--user", "kc", "--state-directory", "/srv/state", "--runtime-directory", "/srv/run", "--uid", "1000", "--uid", "1001"]
        #expect(try DaemonOptions.parse(arguments) == .serve(expected))
        var defaults = DaemonOptions()
        defaults.system = true
        #expect(try DaemonOptions.parse(["--system"]) == .serve(defaults))
        #expect(defaults.user == "swift-keychain" && defaults.stateDirectory == "/var/lib/swift-keychain" && defaults.runtimeDirectory == "/run/swift-keychain")
    }

    @Test("A bad command line is a usage error, not a default")
    func badArguments() {
        for arguments in [["--socket"], ["--socket", "relative.sock"], ["--idle-exit", "-1"], ["--idle-exit", "soon"], ["--verbose"],
            ["--system", "--uid", "me"], ["--system", "--state-directory", "relative"], ["--system", "--user"], ["--user", "kc"], ["--uid", "1000"],
            ["--system", "--socket", "/tmp/k.sock"]] {
            #expect(throws: DaemonOptions.UsageError.self) { try DaemonOptions.parse(arguments) }
        }
    }
}
