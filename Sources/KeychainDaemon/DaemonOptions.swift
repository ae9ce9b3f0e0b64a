import Foundation
import KeychainService

/// `keychaind`'s command line.
public struct DaemonOptions: Equatable, Sendable {
    /// Stay attached to the terminal and log to standard error (systemd and tests run it so).
    public var foreground = false
    /// Serve every user from `/var/lib/swift-keychain/<uid>/`, one socket per user.
    public var system = false
    /// System mode: the user the daemon runs as when started as root.
    public var user = "swift-keychain"
    /// System mode: whether `--user` was given (started as another user, it must be that user).
    public var userGiven = false
    /// System mode: the directory of every user's keychains (`<directory>/<uid>/`).
    public var stateDirectory = "/var/lib/swift-keychain"
    /// System mode: the directory of the per-user sockets (`<directory>/<uid>/keychaind.sock`).
    public var runtimeDirectory = "/run/swift-keychain"
    /// System mode: the users served; empty serves every login user of the user database
    /// (started as root) or the daemon's own user (started as another user).
    public var users: [UInt32] = []
    /// The socket to listen on instead of the default one.
    public var socket: String?
    /// Exit after this many seconds without a client, when no keychain it holds would lose an
    /// unlock by exiting; nil never exits on its own.
    public var idleExit: TimeInterval? = 60
    /// Tests only: read a process's sandbox description at `<directory>/<pid>/.flatpak-info`
    /// instead of inside its root (`/proc/<pid>/root/.flatpak-info`), so a test can make an
    /// ordinary process look sandboxed. Whoever starts the daemon could run another daemon
    /// anyway, so this grants nothing a starter does not already have.
    public var flatpakInfoDirectory: String?

    /// Options with their defaults.
    public init() {}

    /// The usage text `--help` prints.
    public static let usage = """
        usage: keychaind [--foreground] [--socket PATH] [--idle-exit SECONDS]
               keychaind --system [--user NAME] [--state-directory DIR] [--runtime-directory DIR]
                         [--uid UID]...

        Serves the user's keychains to `import Security` and the `security` command over a Unix
        socket, holding their unlocked keys in memory and deciding each caller's access groups.

          --foreground         stay in the foreground and log to standard error
          --socket PATH        listen on PATH (default: $XDG_RUNTIME_DIR/swift-keychain/keychaind.sock)
          --system             system mode: run as a dedicated user, keep each user's keychains
                               under /var/lib/swift-keychain/<uid>/ and serve each on its own socket
                               /run/swift-keychain/<uid>/keychaind.sock (always in the foreground,
                               never exiting when idle)
          --user NAME          system mode started as root: the user to run as (default swift-keychain)
          --state-directory DIR
                               system mode: keep the keychains under DIR/<uid>/
          --runtime-directory DIR
                               system mode: serve each user on DIR/<uid>/keychaind.sock
          --uid UID            system mode: serve this user (repeatable; default: every login user,
                               uid 1000-60000, or the daemon's own user when not started as root)
          --idle-exit SECONDS  exit after SECONDS without clients when nothing unlocked would be lost
                               (0: never; default 60)
          --help               print this text
          --test-flatpak-info DIR
                               tests only: read a process's sandbox description from
                               DIR/<pid>/.flatpak-info

        """

    /// What the command line asks for.
    public enum Command: Equatable, Sendable {
        /// Serve with these options.
        case serve(DaemonOptions)
        /// Print the usage and exit 0.
        case help
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: `DaemonOptions.UsageError` naming the argument that is not understood.
    public static func parse(_ arguments: [String]) throws -> Command {
        var options = DaemonOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h": return .help
            case "--foreground": options.foreground = true
            case "--system": options.system = true
            case "--user":
                guard let name = remaining.popFirst(), !name.isEmpty else {
                    throw UsageError(message: "--user needs a user name")
                }
                options.user = name
                options.userGiven = true
            case "--state-directory", "--runtime-directory":
                guard let path = remaining.popFirst(), path.hasPrefix("/") else {
                    throw UsageError(message: "\(argument) needs an absolute path")
                }
                if argument == "--state-directory" { options.stateDirectory = path } else { options.runtimeDirectory = path }
            case "--uid":
                guard let text = remaining.popFirst(), let uid = UInt32(text), uid != UInt32.max else {
                    throw UsageError(message: "--uid needs a numeric user id")
                }
                if !options.users.contains(uid) { options.users.append(uid) }
            case "--socket":
                guard let path = remaining.popFirst(), path.hasPrefix("/") else {
                    throw UsageError(message: "--socket needs an absolute path")
                }
                options.socket = path
            case "--test-flatpak-info":
                guard let path = remaining.popFirst(), path.hasPrefix("/") else {
                    throw UsageError(message: "--test-flatpak-info needs an absolute path")
                }
                options.flatpakInfoDirectory = path
            case "--idle-exit":
                guard let text = remaining.popFirst(), let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                    throw UsageError(message: "--idle-exit needs a number of seconds")
                }
                options.idleExit = seconds == 0 ? nil : seconds
            default:
                throw UsageError(message: "unknown argument: \(argument)")
            }
        }
        if !options.system && (options.userGiven || !options.users.isEmpty) {
            throw UsageError(message: "--user and --uid belong to --system")
        }
        if options.system && options.socket != nil {
            throw UsageError(message: "--system serves one socket per user: use --runtime-directory, not --socket")
        }
        return .serve(options)
    }

    /// A command line `keychaind` does not understand.
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        /// What is wrong.
        public let message: String
        public var description: String { message }
    }
}
