import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT end the daemon normally: through `exit`, so the engine's exit handler
/// checkpoints every open keychain and truncates its write-ahead log, and the database files hold
/// every acknowledged write once the daemon is gone (as they do after a process that opened the
/// keychain itself ends). Without this the default action of SIGTERM (what `systemctl stop` and
/// `ServiceClient.stopDaemon` send) ends the process with the log still full.
///
/// The signals are blocked in every thread and taken by one thread with `sigwait`, since `exit`
/// may not be called from a signal handler.
enum TerminationSignals {
    /// Blocks SIGTERM and SIGINT and starts the thread that waits for them. Call before any other
    /// thread starts, so that every thread inherits the blocked mask.
    static func exitNormallyOnTermination() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let waiting = signals
        let thread = Thread {
            var set = waiting
            var received: Int32 = 0
            while sigwait(&set, &received) != 0 {}
            Daemon.log("signal \(received): exiting")
            exit(0)
        }
        thread.start()
    }
}
