import CLinuxSupport
import Foundation
import KeychainAuthentication

#if canImport(Glibc)
import Glibc
#endif

/// Watches a client's connection while a request that waits for the user runs (a fingerprint
/// verification): when the client closes its end or shuts it down (an `LAContext` invalidated,
/// or the process gone), `cancellation` is cancelled, so the reader stops waiting for a finger
/// and releases the device at once instead of at its own timeout.
final class PeerDeparture: Sendable {
    /// Cancelled when the client leaves before `stop()`.
    let cancellation = PromptCancellation()
    /// The pipe whose write end wakes the watching thread for `stop()`.
    private let wake: (read: Int32, write: Int32)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts watching the connected socket `descriptor` on a thread of its own; nil when no pipe
    /// could be made (the request then runs unwatched, as before).
    init?(watching descriptor: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = (ends[0], ends[1])
        let cancellation = self.cancellation
        let wakeEnd = ends[0]
        let stopped = self.stopped
        Thread.detachNewThread {
            if clinux_wait_for_hang_up(descriptor, wakeEnd) == 1 { cancellation.cancel() }
            stopped.signal()
        }
    }

    /// Stops watching (the request ended); returns whether the client left while it ran.
    func stop() -> Bool {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        stopped.wait()
        close(wake.read)
        close(wake.write)
        return cancellation.isCancelled
    }
}
