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

    @Test("A bad command line is a usage error, not a default")
    func badArguments() {
        for arguments in [["--socket"], ["--socket", "relative.sock"], ["--idle-exit", "-1"], ["--idle-exit", "soon"], ["--verbose"]] {
            #expect(throws: DaemonOptions.UsageError.self) { try DaemonOptions.parse(arguments) }
        }
    }
}
