import Foundation
import KeychainAuthentication
import LocalAuthentication
import Testing

/// Debian's `pinentry-tty` (package pinentry-tty), driven through a pseudo-terminal.
@Suite("Debian's pinentry-tty on a pseudo-terminal")
struct RealPinentryTests {
    static let program = "/usr/bin/pinentry-tty"

    @Test("The prompt shows the reason and the program's name, and the typed passcode authenticates",
          .enabled(if: FileManager.default.isExecutableFile(atPath: program), "pinentry-tty is installed (.ci/run installs it)"))
    func typedPasscodeAuthenticates() throws {
        let directory = try TestDirectory()
        let (_, authority) = try directory.keychain(passcode: "2468")
        let terminal = try TerminalPair()
        let environment = PinentryEnvironment(
            variables: ["PATH": "/usr/bin:/bin", "KEYCHAIN_PINENTRY": Self.program, "TERM": "dumb"],
            terminal: terminal.slaveName)
        let context = LAContext.testing(environment, authority: authority, caller: CallingProgram.current)
        let evaluation = Evaluation { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "unlock the release signing key", reply: $0) }
        let shown = terminal.read(until: "Passcode:")
        #expect(shown.contains("unlock the release signing key"))
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().lastPathComponent
        #expect(shown.contains(executable))
        terminal.type("2468\n")
        let (success, error) = evaluation.result()
        #expect(success)
        #expect(error == nil)
        #expect(context.isPasscodeAuthenticated)
    }

    @Test("Wrong passcodes typed at pinentry-tty are asked again with the reason, then LAError.authenticationFailed",
          .enabled(if: FileManager.default.isExecutableFile(atPath: program), "pinentry-tty is installed (.ci/run installs it)"))
    func typedWrongPasscodeFails() throws {
        let directory = try TestDirectory()
        let (_, authority) = try directory.keychain(passcode: "2468")
        let terminal = try TerminalPair()
        let environment = PinentryEnvironment(
            variables: ["PATH": "/usr/bin:/bin", "KEYCHAIN_PINENTRY": Self.program, "TERM": "dumb"],
            terminal: terminal.slaveName)
        let context = LAContext.testing(environment, authority: authority)
        let evaluation = Evaluation { context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r", reply: $0) }
        // Asked three times; the second and third prompts show why.
        for attempt in 0..<3 {
            let shown = terminal.read(until: "Passcode:")
            if attempt > 0 { #expect(shown.contains("Wrong passcode")) }
            terminal.type("1357\n")
        }
        let (success, error) = evaluation.result()
        #expect(!success)
        #expect(laCode(error) == .authenticationFailed)
    }
}
