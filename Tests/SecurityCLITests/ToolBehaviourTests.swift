import Foundation
import Testing

/// Global options, help, unknown and unimplemented commands, `error`, through the built binary.
@Suite struct ToolBehaviourTests {
    let tool: SecurityBinary
    init() throws { tool = try SecurityBinary() }

    @Test func unknownCommandExitsWith1() throws {
        let run = try tool.run("frobnicate")
        #expect(run.status == 1)
        #expect(run.error == "security: unknown command \"frobnicate\"\n")
        #expect(run.output.isEmpty)
    }

    @Test(arguments: ["login-keychain", "create-keypair", "find-key", "verify-cert"])
    func commandsNotImplementedExitWith252(_ command: String) throws {
        let run = try tool.run(command, "anything")
        #expect(run.status == 252)
        #expect(run.error == "security: \(command): Function or operation not implemented.\n")
    }

    @Test func noArgumentsPrintsGlobalUsageAndExits2() throws {
        let run = try tool.run()
        #expect(run.status == 2)
        #expect(run.output.hasPrefix("Usage: security [-h] [-i] [-l] [-p prompt] [-q] [-v] [command] [opt ...]\n"))
        #expect(run.output.contains("    find-generic-password Find a generic password item.\n"))
    }

    @Test func unknownGlobalOptionIsBadUsage() throws {
        let run = try tool.run("-z", "help")
        #expect(run.status == 2)
        #expect(run.error == "security: illegal option -- z\n")
    }

    @Test func dashHListsCommandsAndExits0() throws {
        let run = try tool.run("-h")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("    help              Show all commands, or show usage for a command.\n"))
        #expect(run.output.contains("    dump-keychain     Dump the contents of one or more keychains.\n"))
        #expect(run.output.contains("    error             Display a descriptive message for the given error code(s).\n"))
        // This tool's own commands come after macOS's.
        #expect(run.output.hasSuffix(
            "    entitlements      Register programs and the keychain access groups keychaind grants them.\n"
                + "    sync              Sync synchronizable items with the user's other keychains through PostgreSQL.\n"))
    }

    @Test func helpForACommandPrintsItsUsage() throws {
        let run = try tool.run("help", "find-internet-password")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("Usage: find-internet-password [-a account] [-s server] [options...] [-g] [keychain...]\n"))
        #expect(try tool.run("-h", "dump-keychain").output.hasPrefix("Usage: dump-keychain [-adir] [-o file] [keychain...]\n"))
        let unknown = try tool.run("help", "nothing-like-this")
        #expect(unknown.status == 1)
        #expect(unknown.error == "security: help: no such command: nothing-like-this\n")
    }

    @Test(arguments: [
        "add-generic-password", "find-generic-password", "delete-generic-password", "add-internet-password",
        "find-internet-password", "delete-internet-password", "dump-keychain", "create-keychain", "delete-keychain",
        "lock-keychain", "unlock-keychain", "set-keychain-password", "set-keychain-settings", "show-keychain-info",
        "list-keychains", "default-keychain", "backup-keychain", "restore-keychain",
    ])
    func commandDashHPrintsUsageOnStandardErrorAndExits2(_ command: String) throws {
        let run = try tool.run(command, "-h")
        #expect(run.status == 2)
        #expect(run.error.hasPrefix("Usage: \(command) "))
        #expect(run.output.isEmpty)
    }

    @Test func addWithoutAccountOrServiceIsBadUsage() throws {
        let noService = try tool.run("add-generic-password", "-a", "me", "-w", "pw")
        #expect(noService.status == 2)
        #expect(noService.error.hasSuffix("        Add a generic password item.\n"))
        #expect(try tool.run("add-internet-password", "-s", "host", "-w", "pw").status == 2)
    }

    @Test func unknownCommandOptionIsBadUsage() throws {
        let run = try tool.run("find-generic-password", "-Z")
        #expect(run.status == 2)
        #expect(run.error.hasPrefix("security: illegal option -- Z\nUsage: find-generic-password "))
    }

    @Test func commandsMatchByPrefix() throws {
        #expect(try tool.run("add-gen", "-a", "me", "-s", "svc", "-w", "pw").status == 0)
        #expect(try tool.run("find-g", "-a", "me", "-w").output == "pw\n")
    }

    @Test func errorCommandPrintsMacOSLines() throws {
        let run = try tool.run("error", "-25300", "0xFFFF9D2D", "-50", "0", "-25294")
        #expect(
            run.output == """
                Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain.
                Error: 0xFFFF9D2D -25299 The specified item already exists in the keychain.
                Error: 0xFFFFFFCE -50 One or more parameters passed to a function were not valid.
                Error: 0x00000000 0 No error.
                Error: 0xFFFF9D32 -25294 The specified keychain could not be found.

                """)
        #expect(run.status == 1)  // macOS's `error` returns 1 even after printing.
        #expect(run.error.isEmpty)
    }

    @Test func errorCommandRejectsWordsThatAreNotCodes() throws {
        let run = try tool.run("error", "banana")
        #expect(run.status == 2)
        #expect(run.error.hasPrefix("security: error: \"banana\" is not an error code\nUsage: error <error code(s)...>"))
        #expect(try tool.run("error").status == 2)
    }

    @Test func verboseEchoesTheCommandWithoutThePassword() throws {
        let run = try tool.run("-v", "add-generic-password", "-a", "me", "-s", "svc", "-w", "hunter2")
        #expect(run.status == 0)
        #expect(run.error == "add-generic-password \"-a\" \"me\" \"-s\" \"svc\" \"-w\" \"********\"\n")
    }

    @Test func interactiveModeRunsEachLineAndReportsFailures() throws {
        let script = """
            add-generic-password -a "my account" -s svc -w 'two words'
            find-generic-password -a "my account" -w
            find-generic-password -a nobody

            """
        let run = try tool.run("-i", input: script)
        #expect(run.output == "two words\n")
        #expect(
            run.error == GenericPasswordTests.notFound + "find-generic-password: returned -25300\n")
        #expect(run.status == 44)
        let quiet = try tool.run("-q", "-i", input: "find-generic-password -a nobody\n")
        #expect(quiet.error == GenericPasswordTests.notFound)
    }
}
