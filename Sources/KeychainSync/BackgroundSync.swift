import Foundation
import KeychainCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Sync of the keychains a long-running process holds (keychaind), without `security sync now`.
///
/// Each keychain that syncs gets a worker thread, started when a client opens the keychain or
/// writes its sync state. The worker runs a full exchange (`SyncEngine.syncNow`):
/// - when it starts, and each time its listening connection to the server is made again
///   (notifications sent meanwhile were lost);
/// - `debounce` after a client changes an item of the keychain (changes arriving meanwhile are
///   carried by the same exchange);
/// - when another device's upload is notified on the account's channel (`LISTEN`; a device's
///   own notifications are ignored);
/// - every `period` otherwise.
/// When the server cannot be reached, it tries again after `firstRetry`, doubling up to
/// `maximumRetry` (a change meanwhile waits for the next try); clients' writes still succeed
/// locally, and the failure is in the sync state's last error (`security sync status`). A worker
/// ends when the keychain no longer syncs, or when its device was removed from the account (the
/// reason stays in the last error). Its exchanges and those keychaind runs for
/// `security sync now` (`DaemonSync`) take the keychain's `SyncExchangeLock`: one at a time.
package final class BackgroundSync: Sendable {
    /// When exchanges run.
    package struct Timing: Sendable {
        /// How long after a local change the exchange waits (changes meanwhile go with it).
        package var debounce: TimeInterval = 0.2
        /// The longest time between two exchanges.
        package var period: TimeInterval = 300
        /// The wait before the first retry of a failed exchange.
        package var firstRetry: TimeInterval = 1
        /// The longest wait between retries (each doubles the last).
        package var maximumRetry: TimeInterval = 60

        /// keychaind's timing.
        package init() {}
    }

    private let timing: Timing
    private let open: @Sendable (String) throws -> any KeychainHandle
    private let log: @Sendable (String) -> Void
    /// The workers by keychain path, and the paths found not to sync (not checked again until
    /// their sync state is written).
    private let registry = Mutex<(workers: [String: Worker], withoutSync: Set<String>)>(([:], []))

    /// Background sync for the keychains `open` returns by path (with access to the sync state's
    /// group); `log` gets one line per failure or recovery (never a value or a secret).
    package init(
        timing: Timing = Timing(), log: @escaping @Sendable (String) -> Void,
        open: @escaping @Sendable (String) throws -> any KeychainHandle
    ) {
        self.timing = timing
        self.log = log
        self.open = open
    }

    /// Whether any keychain syncs in the background.
    package var isActive: Bool { registry.withLock { !$0.workers.isEmpty } }

    /// Whether `request` names the sync state's item (its access group): writing it may start or
    /// end a keychain's sync.
    package static func namesSyncState(_ request: ItemRequest) -> Bool {
        request.attributes[.accessGroup]?.stringValue == SyncState.accessGroup
    }

    /// A client opened the keychain at `path`: starts its worker if it syncs.
    package func keychainOpened(path: String) {
        startIfSyncing(path: path, recheck: false)
    }

    /// A client changed items of the keychain at `path`; `syncState` when it wrote the sync
    /// state itself (an enable or a join).
    package func keychainChanged(path: String, syncState: Bool) {
        if syncState {
            startIfSyncing(path: path, recheck: true)
            return
        }
        registry.withLock { $0.workers[path] }?.wake()
    }

    private func startIfSyncing(path: String, recheck: Bool) {
        let known = registry.withLock { registry -> Bool in
            if recheck { registry.withoutSync.remove(path) }
            return registry.workers[path] != nil || registry.withoutSync.contains(path)
        }
        guard !known else { return }
        let syncs: Bool
        do {
            syncs = try SyncState.load(from: try open(path)) != nil
        } catch {
            // Locked, or unreadable: looked at again at the next open.
            return
        }
        let worker = registry.withLock { registry -> Worker? in
            guard registry.workers[path] == nil else { return nil }
            guard syncs else {
                registry.withoutSync.insert(path)
                return nil
            }
            guard let worker = Worker(path: path) else { return nil }
            registry.workers[path] = worker
            return worker
        }
        guard let worker else { return }
        let thread = Thread { [self] in
            run(worker)
            registry.withLock { registry in
                registry.workers[path] = nil
                registry.withoutSync.insert(path)
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// A keychain's worker: the pipe that wakes it.
    private final class Worker: Sendable {
        let path: String
        private let readEnd: Int32
        private let writeEnd: Int32

        init?(path: String) {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { return nil }
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            self.path = path
            (readEnd, writeEnd) = (ends[0], ends[1])
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        /// Tells the worker a local change happened (never blocks: a full pipe already says so).
        func wake() {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }

        /// The descriptor to poll for wakes.
        var descriptor: Int32 { readEnd }

        /// Empties the pipe.
        func drain() {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(readEnd, &buffer, buffer.count) > 0 {}
        }
    }

    /// The worker's loop; returns when the keychain no longer syncs.
    private func run(_ worker: Worker) {
        var listener: PostgresConnection?
        var ownDevice = ""
        var nextRun = Date()
        var retryDelay: TimeInterval?
        var notBefore = Date.distantPast
        while true {
            // The keychain was deleted: nothing left to sync.
            guard FileManager.default.fileExists(atPath: worker.path) else { return }
            if listener == nil && Date() >= notBefore {
                do {
                    guard let state = try SyncState.load(from: try open(worker.path)) else { return }
                    let connection = try PostgresConnection(state.conninfo)
                    try connection.execute("LISTEN \(SyncEngine.channel(for: state.accountID))")
                    listener = connection
                    ownDevice = state.deviceID.uuidString.lowercased()
                    // Notifications sent while it was not listening are lost: exchange now.
                    nextRun = min(nextRun, Date())
                } catch {
                    // The exchange below reports and backs off.
                }
            }
            var descriptors = [pollfd(fd: worker.descriptor, events: Int16(POLLIN), revents: 0)]
            if let listener { descriptors.append(pollfd(fd: listener.socketDescriptor, events: Int16(POLLIN), revents: 0)) }
            let wait = max(0, nextRun.timeIntervalSinceNow)
            _ = poll(&descriptors, nfds_t(descriptors.count), Int32(min(wait, 3600) * 1000))
            if descriptors[0].revents != 0 {
                worker.drain()
                nextRun = min(nextRun, max(Date().addingTimeInterval(timing.debounce), notBefore))
            }
            if descriptors.count > 1, descriptors[1].revents != 0, let connection = listener {
                do {
                    if try connection.notifications().contains(where: { $0 != ownDevice }) {
                        nextRun = min(nextRun, max(Date(), notBefore))
                    }
                } catch {
                    listener = nil
                    nextRun = min(nextRun, max(Date(), notBefore))
                }
            }
            guard Date() >= nextRun else { continue }
            do {
                // One exchange of a keychain at a time: a `sync now` keychaind runs meanwhile waits.
                let report = try SyncExchangeLock.run(path: worker.path) { try SyncEngine.syncNow(try open(worker.path)) }
                if let refusal = report.refused.first { log("sync of \(worker.path) refused the server's records: \(refusal)") }
                if retryDelay != nil { log("sync of \(worker.path) caught up") }
                retryDelay = nil
                notBefore = .distantPast
                nextRun = Date().addingTimeInterval(timing.period)
            } catch let error as SyncError where error.code == .notEnabled {
                return
            } catch let error as SyncError where error.code == .removed {
                // The reason is in the sync state (`security sync status`); a `sync now` still
                // tries, and a new enable or join starts a worker again.
                log("sync of \(worker.path) stopped: \(error)")
                return
            } catch let error as SyncError where error.code == .conflict {
                nextRun = Date().addingTimeInterval(timing.debounce)
            } catch {
                let delay = min(timing.maximumRetry, retryDelay.map { $0 * 2 } ?? timing.firstRetry)
                if retryDelay == nil { log("sync of \(worker.path) failed: \(error); trying again with back-off") }
                retryDelay = delay
                notBefore = Date().addingTimeInterval(delay)
                nextRun = notBefore
                if (error as? SyncError)?.code == .serverUnreachable { listener = nil }
            }
        }
    }
}
