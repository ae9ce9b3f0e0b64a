import Foundation
import Testing

/// A trailing `-w` prompts twice, through the built binary: from standard input when it is not
/// a terminal, and on a pseudo-terminal with echo off.
@Suite struct PasswordPromptTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    static let prompts = "password data for new item: retype password for new item: "

    @Test func trailingWReadsThePasswordTwiceFromStandardInput() throws {
        let run = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", input: "typed secret\ntyped secret\n")
        #expect(run.status == 0)
        #expect(run.error == Self.prompts)
        #expect(try tool.run("find-generic-password", "-a", "me", "-w").output == "typed secret\n")
    }

    @Test func mismatchedEntriesAreRetriedThenFail() throws {
        let retried = try tool.run("add-generic-password", "-a", "me", "-s", "svc", "-w", input: "one\ntwo\nthree\nthree\n")
        #expect(retried.status == 0)
        #expect(retried.error == Self.prompts + "passwords don't match\n" + Self.prompts)
        #expect(try tool.run("find-generic-password", "-a", "me", "-w").output == "three\n")

        let failed = try tool.run("add-generic-password", "-a", "other", "-s", "svc", "-w", input: "a\nb\nc\nd\ne\nf\n")
        #expect(failed.status == 1)
        #expect(failed.error == String(repeating: Self.prompts + "passwords don't match\n", count: 3))
        #expect(try tool.run("find-generic-password", "-a", "other").status == 44)
    }

    @Test func endOfInputBeforeAPasswordFails() throws {
        let run = try tool.run("add-internet-password", "-a", "me", "-s", "host", "-w", input: "")
        #expect(run.status == 1)
        #expect(run.error == "password data for new item: security: no password was entered\n")
        #expect(try tool.run("find-internet-password", "-s", "host").status == 44)
    }

    @Test func passwordIsNeverTakenFromTheEnvironment() throws {
        let running = try tool.start(
            ["add-generic-password", "-a", "me", "-s", "svc", "-w"], input: "from stdin\nfrom stdin\n",
            environment: ["PASSWORD": "from env", "SECURITY_PASSWORD": "from env", "KEYCHAIN_PASSWORD": "from env"])
        #expect(try running.finish().status == 0)
        #expect(try tool.run("find-generic-password", "-a", "me", "-w").output == "from stdin\n")
    }

    @Test func terminalPromptDoesNotEchoThePassword() throws {
        let terminal = try PseudoTerminal()
        let running = try terminal.start(
            SecurityBinary.executableURL, ["add-generic-password", "-a", "tty", "-s", "svc", "-w"], home: tool.home,
            environment: tool.environment)
        var transcript = try terminal.read(until: "password data for new item: ")
        terminal.write("quiet please\n")
        transcript += try terminal.read(until: "retype password for new item: ")
        terminal.write("quiet please\n")
        #expect(running.wait() == 0)
        transcript += terminal.readAvailable()
        #expect(transcript.contains("password data for new item: \r\nretype password for new item: \r\n"))
        #expect(!transcript.contains("quiet please"))
        #expect(try tool.run("find-generic-password", "-a", "tty", "-w").output == "quiet please\n")
    }
}
