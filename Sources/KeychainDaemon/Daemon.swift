import Foundation
import KeychainCore
import KeychainService

/// The keychain service: listens on its socket and serves each client's requests.
public enum Daemon {
    /// Runs the daemon until it exits; returns the process's exit status.
    public static func run(_ options: DaemonOptions) -> Int32 {
        FileHandle.standardError.write(Data("keychaind: the server is being built\n".utf8))
        return 70
    }
}
