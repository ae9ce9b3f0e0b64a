import Foundation
import KeychainAuthentication
import Testing

@Suite("Choosing the pinentry program")
struct PinentryEnvironmentTests {
    /// A directory of executable files with `names`, for a `PATH`.
    private func programs(_ names: [String], in directory: TestDirectory) throws -> String {
        let bin = directory.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for name in names {
            _ = FileManager.default.createFile(atPath: bin + "/" + name, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        }
        return bin
    }

    private func chosen(_ variables: [String: String], terminal: String?) -> String? {
        try? PinentryEnvironment(variables: variables, terminal: terminal).program().get()
    }

    @Test("KEYCHAIN_PINENTRY overrides the choice: a path, or a name found on PATH, even without a terminal")
    func overrideWins() throws {
        let directory = try TestDirectory()
        let bin = try programs(["pinentry", "my-prompt"], in: directory)
        #expect(chosen(["PATH": bin, "KEYCHAIN_PINENTRY": bin + "/my-prompt"], terminal: nil) == bin + "/my-prompt")
        #expect(chosen(["PATH": bin, "KEYCHAIN_PINENTRY": "my-prompt", "DISPLAY": ":0"], terminal: nil) == bin + "/my-prompt")
    }

    @Test("A KEYCHAIN_PINENTRY naming nothing executable is a failure, not a fallback to another program")
    func brokenOverrideFails() throws {
        let directory = try TestDirectory()
        let bin = try programs(["pinentry"], in: directory)
        let result = PinentryEnvironment(variables: ["PATH": bin, "KEYCHAIN_PINENTRY": "/nonexistent/pinentry", "DISPLAY": ":0"], terminal: nil).program()
        #expect(throws: PinentryEnvironment.ChoiceFailure.self) { try result.get() }
    }

    @Test("With a display, `pinentry` (Debian's alternatives link) is preferred")
    func displayPrefersAlternative() throws {
        let directory = try TestDirectory()
        let bin = try programs(["pinentry", "pinentry-curses", "pinentry-tty"], in: directory)
        #expect(chosen(["PATH": bin, "WAYLAND_DISPLAY": "wayland-0"], terminal: nil) == bin + "/pinentry")
    }

    @Test("Without a display, a terminal program is preferred: pinentry-curses, then pinentry-tty")
    func terminalPrefersTerminalPrograms() throws {
        let directory = try TestDirectory()
        let bin = try programs(["pinentry", "pinentry-curses", "pinentry-tty"], in: directory)
        #expect(chosen(["PATH": bin], terminal: "/dev/pts/9") == bin + "/pinentry-curses")
        let onlyTTY = try TestDirectory()
        let ttyBin = try programs(["pinentry", "pinentry-tty"], in: onlyTTY)
        #expect(chosen(["PATH": ttyBin], terminal: "/dev/pts/9") == ttyBin + "/pinentry-tty")
    }

    @Test("With neither a display nor a terminal, and no override, no program is chosen")
    func nowhereToAsk() throws {
        let directory = try TestDirectory()
        let bin = try programs(["pinentry", "pinentry-curses"], in: directory)
        #expect(chosen(["PATH": bin], terminal: nil) == nil)
    }

    @Test("GPG_TTY names the caller's terminal")
    func gpgTTY() {
        #expect(PinentryEnvironment.terminal(in: ["GPG_TTY": "/dev/pts/7"]) == "/dev/pts/7")
    }

    @Test("KEYCHAIN_PINENTRY_TIMEOUT sets the prompt's time; nonsense keeps the default")
    func timeout() {
        #expect(PinentryEnvironment(variables: ["KEYCHAIN_PINENTRY_TIMEOUT": "7"], terminal: nil).timeout == 7)
        #expect(PinentryEnvironment(variables: ["KEYCHAIN_PINENTRY_TIMEOUT": "-1"], terminal: nil).timeout == PinentryEnvironment.defaultTimeout)
        #expect(PinentryEnvironment(variables: ["KEYCHAIN_PINENTRY_TIMEOUT": "x"], terminal: nil).timeout == PinentryEnvironment.defaultTimeout)
    }
}
