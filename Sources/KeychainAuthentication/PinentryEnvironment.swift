import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a pinentry prompt can appear and which program shows it, chosen as gpg-agent does.
///
/// - `KEYCHAIN_PINENTRY` names the program (a path, or a name looked up on `PATH`); it is used
///   as it is, with or without a terminal or display.
/// - Otherwise, with a display (`DISPLAY` or `WAYLAND_DISPLAY`), `pinentry` (Debian's
///   alternatives link, `/usr/bin/pinentry` → `/etc/alternatives/pinentry`), then the graphical
///   programs, then the terminal ones.
/// - Without a display, a terminal program (`pinentry-curses`, `pinentry-tty`, then `pinentry`)
///   on the caller's terminal: `GPG_TTY`, else the terminal of standard input. With neither a
///   display nor a terminal there is nowhere to ask, and no program is started.
///
/// The terminal is passed to the program as `OPTION ttyname` and `TERM` as `OPTION ttytype`.
package struct PinentryEnvironment: Sendable {
    /// The environment the program runs in (and the choice reads).
    package var variables: [String: String]
    /// The terminal the prompt may use, or nil.
    package var terminal: String?

    /// How long a prompt may wait for the user, in seconds, by default.
    package static let defaultTimeout: Double = 60

    /// The names tried when a display is available.
    static let graphicalCandidates = [
        "pinentry", "pinentry-x11", "pinentry-gnome3", "pinentry-qt", "pinentry-gtk-2", "pinentry-curses", "pinentry-tty",
    ]
    /// The names tried on a terminal.
    static let terminalCandidates = ["pinentry-curses", "pinentry-tty", "pinentry"]

    /// The environment of `variables`, with `terminal` as the caller's terminal.
    package init(variables: [String: String], terminal: String?) {
        self.variables = variables
        self.terminal = terminal
    }

    /// This process's environment and terminal (`GPG_TTY`, else standard input's terminal).
    package static var current: PinentryEnvironment {
        let variables = ProcessInfo.processInfo.environment
        return PinentryEnvironment(variables: variables, terminal: terminal(in: variables))
    }

    /// `GPG_TTY` when set, else the name of standard input's terminal, else nil.
    package static func terminal(in variables: [String: String]) -> String? {
        if let named = variables["GPG_TTY"], !named.isEmpty { return named }
        guard isatty(STDIN_FILENO) == 1, let name = ttyname(STDIN_FILENO) else { return nil }
        return String(cString: name)
    }

    /// Whether a graphical session is reachable.
    package var hasDisplay: Bool {
        !(variables["DISPLAY"] ?? "").isEmpty || !(variables["WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    /// The time a prompt may wait for the user: `KEYCHAIN_PINENTRY_TIMEOUT` seconds when it is a
    /// positive number, else `defaultTimeout`.
    package var timeout: Double {
        if let text = variables["KEYCHAIN_PINENTRY_TIMEOUT"], let seconds = Double(text), seconds > 0, seconds.isFinite {
            return seconds
        }
        return Self.defaultTimeout
    }

    /// The program to run, or why there is none.
    package func program() -> Result<String, ChoiceFailure> {
        if let chosen = variables["KEYCHAIN_PINENTRY"], !chosen.isEmpty {
            guard let path = resolve(chosen) else {
                return .failure(ChoiceFailure(reason: "KEYCHAIN_PINENTRY names no executable program"))
            }
            return .success(path)
        }
        let candidates: [String]
        if hasDisplay {
            candidates = Self.graphicalCandidates
        } else if terminal != nil {
            candidates = Self.terminalCandidates
        } else {
            return .failure(ChoiceFailure(reason: "no terminal and no display to ask on"))
        }
        for name in candidates {
            if let path = resolve(name) { return .success(path) }
        }
        if let path = resolve("/etc/alternatives/pinentry") { return .success(path) }
        return .failure(ChoiceFailure(reason: "no pinentry program is installed"))
    }

    /// Why no program was chosen.
    package struct ChoiceFailure: Error, Equatable {
        /// What is missing, never a secret.
        package let reason: String
    }

    /// `name` as an executable path: itself when it contains a slash, else found on `PATH`.
    private func resolve(_ name: String) -> String? {
        if name.contains("/") { return Self.isExecutableFile(name) ? name : nil }
        let path = variables["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if Self.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }
}
