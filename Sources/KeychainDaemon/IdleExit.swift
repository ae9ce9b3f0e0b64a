import Foundation
import KeychainCore

#if canImport(Glibc)
import Glibc
#endif

/// Ends the daemon once no client has been connected for a while and exiting loses nothing:
/// every keychain it holds is locked, or has no passcode (its keys come back without one), and
/// no keychain syncs in the background (which is the daemon's work even without clients).
enum IdleExit {
    /// Checks every second, on a thread of its own.
    static func watch(_ server: DaemonServer, after interval: TimeInterval, socketPath: String?) {
        let thread = Thread {
            while true {
                sleep(1)
                let idleSince = server.activity.withLock { $0.connections == 0 ? $0.lastClosed : nil }
                guard let idleSince, Date().timeIntervalSince(idleSince) >= interval else { continue }
                guard server.handler.backgroundSync?.isActive != true else { continue }
                guard Keychain.openInstances().allSatisfy({ $0.lockState != .unlocked || !$0.hasPasscode }) else { continue }
                if let socketPath { unlink(socketPath) }
                Daemon.log("idle: exiting")
                exit(0)
            }
        }
        thread.start()
    }
}
