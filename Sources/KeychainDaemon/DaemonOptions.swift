import Foundation
import KeychainService

/// `keychaind`'s command line.
public struct DaemonOptions: Equatable, Sendable {
    /// Stay attached to the terminal and log to standard error (systemd and tests run it so).
    public var foreground = false
    /// Serve every user from `/var/lib/swift-keychain/<uid>/`, one socket per user.
    public var system = false
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
        usage: keychaind [--foreground] [--socket PATH] [--system] [--idle-exit SECONDS]

        Serves the user's keychains to `import Security` and the `security` command over a Unix
        socket, holding their unlocked keys in memory and deciding each caller's access groups.

          --foreground         stay in the foreground and log to standard error
          --socket PATH        listen on PATH (default: $XDG_RUNTIME_DIR/swift-keychain/keychaind.sock)
          --system             system mode: run as a dedicated user, keep each user's keychains
                               under /var/lib/swift-keychain/<uid>/ and serve each on its own socket
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
        return .serve(options)
    }

    /// A command line `keychaind` does not understand.
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        /// What is wrong.
        public let message: String
        public var description: String { message }
    }
}
